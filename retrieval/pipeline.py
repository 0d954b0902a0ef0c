"""The ask pipeline: retrieve over both graphs, answer (extractively or with the chat model),
or refuse. The facade, the web app, the MCP server and eval systems all call this one place."""

from __future__ import annotations

import time
from collections.abc import Callable

from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.core.provisions import container_ids
from bifrost.core.resources import Resources
from bifrost.core.types import Answer, AnswerMode, Provision, make_uid
from retrieval.config import RetrievalConfig
from retrieval.hybrid import HybridRetriever

REFUSAL_TEXT = "The indexed regulations do not answer this question."


class AskPipeline:
    """Hybrid retrievers per corpus (indexes loaded once) and the answer step over them."""

    def __init__(self, res: Resources, config: RetrievalConfig | None = None) -> None:
        self.res = res
        self.config = config or RetrievalConfig()
        self._retrievers: dict[str, HybridRetriever] = {}

    def forget(self, corpus: str | None = None) -> None:
        """Drop loaded indexes (after a rebuild) so the next question reloads them."""
        if corpus is None:
            self._retrievers.clear()
        else:
            self._retrievers.pop(corpus, None)

    def loaded(self, corpus: str) -> HybridRetriever | None:
        return self._retrievers.get(corpus)

    def retriever(self, corpus: str) -> HybridRetriever:
        """The hybrid retriever of a corpus, its indexes loaded once."""
        if corpus not in self._retrievers:
            self._retrievers[corpus] = self._load(corpus)
        return self._retrievers[corpus]

    def _load(self, corpus: str) -> HybridRetriever:
        from graph_builders.entities.extractors import make_entity_extractor
        from graph_builders.entities.normalize import normalize_name
        from retrieval.baselines.bm25 import Bm25Ranker
        from retrieval.decompose import ExtractorDecomposer
        from retrieval.eng_index import EngIndex

        res = self.res
        res.require_corpus(corpus)
        index = EngIndex.load(res.sql, corpus)
        if index.empty:
            raise NotFoundError(f"corpus {corpus!r} has no entity network yet; run `bifrost build entities --corpus {corpus}`")
        decomposer = ExtractorDecomposer(make_entity_extractor(res, corpus, "auto"), normalize_name)
        bm25 = Bm25Ranker(res.settings)
        bm25.warm_up(corpus)
        dense = self.dense_ranker(corpus)
        return HybridRetriever(
            index, res.graph, res.embedder, lambda q: decomposer.decompose(q, corpus), self.config,
            lexical=lambda q, k: [(it.id, it.score) for it in bm25.search(q, k)],
            dense=lambda q, k: [(it.id, it.score) for it in dense.search(q, k)],
            containers=container_ids(res.sql.provisions(corpus)),
        )

    def dense_ranker(self, corpus: str):
        """Embeddings of every provision (cached on disk under $BIFROST_HOME/index)."""
        from retrieval.baselines.dense import DenseRanker

        dense = DenseRanker(self.res.settings, embedder=self.res.embedder)
        dense.warm_up(corpus)
        return dense

    def lookup(self, corpus: str) -> Callable[[str], Provision | None]:
        graph = self.res.graph
        return lambda pid: graph.get_section(make_uid(corpus, pid))

    def ask(self, question: str, corpus: str, config: RetrievalConfig | None = None) -> Answer:
        """Answer a question with cited provisions, or refuse when nothing supports an answer."""
        from retrieval.answer_extractive import extractive_statements, render
        from retrieval.citations import citations_for, select_cited
        from retrieval.refusal import should_refuse

        question = (question or "").strip()
        if not question:
            raise BifrostError("the question is empty")
        t0 = time.perf_counter()
        retr = self.retriever(corpus)
        cfg = config or retr.config
        result = retr.retrieve(question, cfg)
        lookup = self.lookup(corpus)
        timings = dict(result.timings)
        t1 = time.perf_counter()
        chat = self.res.chat_model
        mode = AnswerMode.EXTRACTIVE if chat is None else AnswerMode.LLM
        refused = should_refuse(result, cfg.refuse_below)
        statements = []
        if not refused and mode is AnswerMode.EXTRACTIVE:
            cited = select_cited(result.items, cfg.cite_ratio, cfg.cite_max)
            statements = extractive_statements(question, cited, lookup, self.res.embedder)
            refused = not statements
        elif not refused:
            from retrieval.answer_llm import LlmAnswerer

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
