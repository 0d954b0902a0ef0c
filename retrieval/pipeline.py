"""The ask pipeline: retrieve over both graphs, answer (extractively or with the chat model),
or refuse. The facade, the web app, the MCP server and eval systems all call this one place."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bifrost.core.embeddings import Embedder
from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.core.graph.base import GraphStore
from bifrost.core.provisions import container_ids
from bifrost.core.resources import Resources
from bifrost.core.types import Answer, AnswerMode, Edition, Provision, Statement, make_uid
from bifrost.retrieval.answer_extractive import render
from bifrost.retrieval.answerability_model import AnswerabilityJudge, load_judge
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import ExtractorDecomposer
from bifrost.retrieval.edition_retriever import EditionRetriever
from bifrost.retrieval.eng_index import EngIndex
from bifrost.retrieval.hybrid import HybridRetriever, RetrievalResult
from bifrost.retrieval.ltr.evidence import Channels
from bifrost.retrieval.ltr.navigator_index import NavigatorIndex

REFUSAL_TEXT = "The indexed regulations do not answer this question."


class Retriever(Protocol):
    """What the ask pipeline needs of a retriever (`HybridRetriever` and `LtrRetriever` both meet it)."""

    config: RetrievalConfig

    @property
    def index(self) -> EngIndex: ...

    def retrieve(self, question: str, config: RetrievalConfig | None = None) -> RetrievalResult: ...


@dataclass
class CorpusParts:
    """Everything loaded once per corpus that retrievers are assembled from."""

    corpus: str
    graph: GraphStore
    embedder: Embedder
    channels: Channels
    nav: NavigatorIndex
    containers: frozenset[str]
    decomposer: ExtractorDecomposer

    def prepare(self, questions: list[str], config: RetrievalConfig | None = None) -> None:
        """Parse every question in one extractor pass and encode all their texts in batches, so
        that answering them one by one finds everything cached (eval runs, batch jobs); with a
        ``config``, also match their entities and triples in batches."""
        decomps = self.decomposer.decompose_many(questions, self.corpus)
        texts = list(questions)
        for d in decomps:
            texts += d.entities
            texts += [p for t in (*d.triples, *d.swapped) for p in (t[0], t[1].replace("_", " "), t[2])]
        self.embedder.embed(list(dict.fromkeys(texts)))
        if self.channels.ranking_dense is not None:
            self.channels.ranking_dense.prepare(list(questions))
        if config is not None:
            self.channels.prepare(decomps, config)

    def hybrid(self, config: RetrievalConfig) -> HybridRetriever:
        """The hand-set hybrid retriever over these indexes."""
        ch = self.channels
        return HybridRetriever(
            ch.index, self.graph, self.embedder, ch.decompose, config,
            lexical=lambda q, k: [(it.id, it.score) for it in ch.bm25.search(q, k)],
            dense=lambda q, k: [(it.id, it.score) for it in ch.dense.search(q, k)],
            containers=self.containers, memo=ch.memo,
        )


class AskPipeline:
    """Hybrid retrievers per corpus (indexes loaded once) and the answer step over them."""

    def __init__(self, res: Resources, config: RetrievalConfig | None = None) -> None:
        self.res = res
        self.config = config or RetrievalConfig()
        self._retrievers: dict[str, Retriever] = {}
        self._parts: dict[str, CorpusParts] = {}
        self._judges: dict[str, AnswerabilityJudge | None] = {}
        self._editions: dict[tuple[str, int, str], EditionRetriever] = {}

    def forget(self, corpus: str | None = None) -> None:
        """Drop loaded indexes and rankers (after a rebuild or training) so the next question reloads them."""
        for cache in (self._retrievers, self._parts, self._judges):
            if corpus is None:
                cache.clear()
            else:
                cache.pop(corpus, None)
        for key in [k for k in self._editions if corpus is None or k[0] == corpus]:
            del self._editions[key]

    def edition_retriever(self, edition: Edition) -> EditionRetriever:
        """The retriever of a past edition (lexical + dense fusion, that edition's navigator), loaded once."""
        key = (edition.corpus, edition.number, edition.content_hash)
        if key not in self._editions:
            self.res.require_corpus(edition.corpus)
            self._editions[key] = EditionRetriever.load(self.res.settings, edition, self.res.embedder, self.config)
        return self._editions[key]

    def loaded(self, corpus: str) -> Retriever | None:
        return self._retrievers.get(corpus)

    def retriever(self, corpus: str) -> Retriever:
        """The retriever of a corpus (learned ranker or hybrid, by `RetrievalConfig.ranker`), loaded once."""
        if corpus not in self._retrievers:
            self._retrievers[corpus] = self._load(corpus)
        return self._retrievers[corpus]

    def _load(self, corpus: str) -> Retriever:
        from bifrost.retrieval.ltr.features import FEATURES
        from bifrost.retrieval.ltr.model import load_ranker
        from bifrost.retrieval.ltr.retriever import LtrRetriever

        parts = self.parts(corpus)
        if self.config.ranker != "hybrid":
            model = load_ranker(self.res.settings, corpus, FEATURES)
            if model is not None:
                return LtrRetriever(parts.channels, parts.nav, model, self.config)
            if self.config.ranker == "ltr":
                raise NotFoundError(f"no trained ranker for corpus {corpus!r}; run `bifrost train ranker --corpus {corpus} --questions FILE`")
        return parts.hybrid(self.config)

    def parts(self, corpus: str) -> CorpusParts:
        """The loaded indexes of a corpus (BM25, dense, entity network, navigator maps), loaded once."""
        if corpus not in self._parts:
            self._parts[corpus] = self._load_parts(corpus)
        return self._parts[corpus]

    def _load_parts(self, corpus: str) -> CorpusParts:
        from bifrost.graph_builders.entities.extractors import make_entity_extractor
        from bifrost.graph_builders.entities.normalize import normalize_name
        from bifrost.retrieval.baselines.bm25 import Bm25Ranker
        from bifrost.retrieval.baselines.documents import index_folder
        from bifrost.retrieval.eng_index import EngIndex
        from bifrost.retrieval.ltr.evidence import Channels
        from bifrost.retrieval.ltr.model import ranker_encoder
        from bifrost.retrieval.ltr.navigator_index import NavigatorIndex

        res = self.res
        res.require_corpus(corpus)
        index = EngIndex.load(res.sql, corpus, index_folder(res.settings.home, corpus))
        if index.empty:
            raise NotFoundError(f"corpus {corpus!r} has no entity network yet; run `bifrost build entities --corpus {corpus}`")
        decomposer = ExtractorDecomposer(make_entity_extractor(res, corpus, "auto"), normalize_name)
        provisions = res.sql.provisions(corpus)
        bm25 = Bm25Ranker(res.settings)
        bm25.warm_up(corpus, provisions)
        dense = self.dense_ranker(corpus, provisions)
        encoder = ranker_encoder(res.settings, corpus)
        ranking_dense = self.dense_ranker(corpus, provisions, encoder) if encoder is not None else None
        decompose = lambda q: decomposer.decompose(q, corpus)  # noqa: E731
        return CorpusParts(
            corpus=corpus, graph=res.graph, embedder=res.embedder,
            channels=Channels(bm25, dense, index, res.embedder, decompose, ranking_dense),
            nav=NavigatorIndex.build(provisions, res.sql.references(corpus, dangling=False)),
            containers=frozenset(container_ids(provisions)),
            decomposer=decomposer,
        )

    def prepare(self, corpus: str, questions: list[str], config: RetrievalConfig | None = None) -> None:
        """Batch the per-question work of many questions (see `CorpusParts.prepare`)."""
        self.parts(corpus).prepare(questions, config)

    def dense_ranker(self, corpus: str, provisions: list[Provision] | None = None, encoder: Path | None = None):
        """Embeddings of every provision (cached on disk under $BIFROST_HOME/index), under the embedding
        model or, given ``encoder``, under that adapted encoder folder (loaded with its own embedder)."""
        from bifrost.core.embeddings import SentenceTransformerEmbedder
        from bifrost.retrieval.baselines.dense import DenseRanker

        if encoder is None:
            dense = DenseRanker(self.res.settings, embedder=self.res.embedder)
        else:
            s = self.res.settings
            embedder = SentenceTransformerEmbedder(str(encoder), runtime=s.embedding_runtime, num_threads=s.embedding_threads)
            dense = DenseRanker(s, model=str(encoder), embedder=embedder)
        dense.warm_up(corpus, provisions)
        return dense

    def write_indexes(self, corpus: str) -> None:
        """(Re)write every index file of a corpus now (build commands call this after a build, so
        that the first question of a new process only maps files)."""
        self.forget(corpus)
        self.parts(corpus)

    def judge(self, corpus: str) -> AnswerabilityJudge | None:
        """The answerability model of a corpus (None: refuse by the cosine rule), loaded once."""
        if corpus not in self._judges:
            parts = self.parts(corpus)
            self._judges[corpus] = load_judge(self.res.settings, corpus, parts.channels, parts.nav, self.lookup(corpus))
        return self._judges[corpus]

    def lookup(self, corpus: str) -> Callable[[str], Provision | None]:
        graph = self.res.graph
        return lambda pid: graph.get_section(make_uid(corpus, pid))

    def ask(
        self, question: str, corpus: str, config: RetrievalConfig | None = None, edition: Edition | None = None,
    ) -> Answer:
        """Answer a question with cited provisions, or refuse when nothing supports an answer.

        ``edition``, when given and not the corpus's current one, answers from that past edition
        only (its provisions, texts and references; see `bifrost.retrieval.edition_retriever`).
        """
        question = (question or "").strip()
        if not question:
            raise BifrostError("the question is empty")
        t0 = time.perf_counter()
        if edition is not None and edition.number != self.res.sql.edition(corpus).number:
            past = self.edition_retriever(edition)
            cfg = config or past.config
            result = past.retrieve(question, cfg)
            answer = self.answer(question, corpus, result, cfg, t0, lookup=past.lookup(), judge=None)
            return answer.model_copy(update={"edition": edition, "note": past.note()})
        retr = self.retriever(corpus)
        cfg = config or retr.config
        result = retr.retrieve(question, cfg)
        return self.answer(question, corpus, result, cfg, t0, lookup=self.lookup(corpus), judge=self.judge(corpus))

    def answer(
        self, question: str, corpus: str, result: RetrievalResult, cfg: RetrievalConfig, t0: float | None = None,
        *, lookup: Callable[[str], Provision | None] | None = None, judge: AnswerabilityJudge | None = None,
    ) -> Answer:
        """The answer to a question from its retrieval result (extractive offline, else the chat model's), or
        a refusal; ``lookup`` reads the provisions quoted (default: the current edition's), ``judge`` decides
        answerability (None: the cosine rule)."""
        from bifrost.retrieval.citations import citations_for
        from bifrost.retrieval.refusal import should_refuse

        t0 = time.perf_counter() if t0 is None else t0
        lookup = lookup or self.lookup(corpus)
        timings = dict(result.timings)
        t1 = time.perf_counter()
        chat = self.res.chat_model
        mode = AnswerMode.EXTRACTIVE if chat is None else AnswerMode.LLM
        refused = should_refuse(result, cfg.refuse_below, question, judge)
        statements = []
        if not refused and mode is AnswerMode.EXTRACTIVE:
            statements = self._extractive(question, result, cfg, lookup)
            refused = not statements
        elif not refused:
            from bifrost.retrieval.answer_llm import LlmAnswerer

            refused, statements, _dropped = LlmAnswerer(chat, self.res.settings.prompts_dir).answer(
                question, result.items, lookup
            )
        timings["answer"] = time.perf_counter() - t1
        timings["total"] = time.perf_counter() - t0
        cited_ids = [c for s in statements for c in s.citations]
        return Answer(
            question=question,
            corpus=corpus,
            mode=mode,
            refused=refused,
            text=REFUSAL_TEXT if refused else render(statements),
            statements=statements,
            citations=citations_for(cited_ids, lookup),
            retrieved=result.items,
            unused=[it.id for it in result.items if it.id not in set(cited_ids)],
            timings=timings,
        )

    def _extractive(self, question: str, result: RetrievalResult, cfg: RetrievalConfig,
                    lookup: Callable[[str], Provision | None]) -> list[Statement]:
        """Statements of the offline answer (`bifrost.retrieval.answer_extractive`) over the cited set."""
        from bifrost.retrieval.answer_extractive import extractive_statements
        from bifrost.retrieval.citations import cited_items

        cited = cited_items(result.items, result.cited, cfg.cite_ratio, cfg.cite_max)
        reach = result.items[: cfg.answer_reach]
        statements = extractive_statements(question, cited, lookup, self.res.embedder, cfg.answer_lead, reach)
        if not statements:  # the cited provisions hold only headings: quote the best retrieved text
            statements = extractive_statements(question, result.items[: cfg.cite_max], lookup, self.res.embedder, cfg.answer_lead)
        return statements
