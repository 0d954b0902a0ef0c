"""The ask pipeline: retrieve over both graphs, answer (extractively or with the chat model),
or refuse. The facade, the web app, the MCP server and eval systems all call this one place."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Any, TypeVar

from bifrost.core.embeddings import Embedder
from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.core.provisions import container_ids
from bifrost.core.resources import Resources
from bifrost.core.store.requirement_tables import requirements as stored_requirements
from bifrost.core.answer_types import Answer, Outcome
from bifrost.core.types import Edition, Provision, make_uid
from bifrost.retrieval.answer.decision_model import DecisionModel
from bifrost.retrieval.answerability.judge import AnswerabilityJudge
from bifrost.retrieval.base import CorpusRetriever
from bifrost.retrieval.channels.base import Channels
from bifrost.retrieval.condense import condensed
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import ExtractorDecomposer
from bifrost.retrieval.edition_retriever import EditionRetriever
from bifrost.graph_builders.jurisdictions.registry import named_finder, pack_of
from bifrost.retrieval.answer.question_facts import read_facts
from bifrost.retrieval.ranking.named_first import named_first, read_named
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.channels.precedents import PrecedentIndex
from bifrost.retrieval.result import RetrievalResult
from bifrost.retrieval.corpus_parts import CorpusParts
from bifrost.retrieval.corpus_models import ROUTER_LOCK, CorpusModels

NO_ENTITY_NETWORK = (
    "The entity network of {corpus} is not built yet: answered by keyword and meaning search over the "
    "navigator graph (run `bifrost build entities --corpus {corpus}` for the full ranking)."
)

T = TypeVar("T")
log = logging.getLogger(__name__)


class AskPipeline(CorpusModels):
    """Hybrid retrievers per corpus (indexes loaded once) and the answer step over them.

    Safe to share between threads (the web server's): each corpus loads under its own re-entrant
    lock, so threads asking the first question of a corpus at once load it once, and one corpus
    loading never holds up questions to another."""

    def __init__(self, resources: Resources, config: RetrievalConfig | None = None) -> None:
        self.resources = resources
        self.config = config or RetrievalConfig()
        self._retrievers: dict[str, CorpusRetriever] = {}
        self._parts: dict[str, CorpusParts] = {}
        self._judges: dict[str, AnswerabilityJudge | None] = {}
        self._decisions: dict[str, Any] = {}
        self._sentences: dict[str, Embedder] = {}
        self._routers: dict[tuple[str, ...], Any] = {}
        self._editions: dict[tuple[str, int, str], EditionRetriever] = {}
        self._locks: dict[str, threading.RLock] = {}  # one per corpus, for every cache above
        self._locks_guard = threading.Lock()

    def _lock(self, corpus: str) -> threading.RLock:
        with self._locks_guard:
            return self._locks.setdefault(corpus, threading.RLock())

    def _once(self, cache: dict, key: object, corpus: str, load: Callable[[], T]) -> T:
        """``cache[key]``, loaded by ``load()`` the first time under ``corpus``'s lock (a thread that
        asks meanwhile waits for that load; the thread loading may ask again, e.g. `retriever`
        reading `parts`)."""
        try:
            return cache[key]
        except KeyError:
            pass
        with self._lock(corpus):
            if key not in cache:
                cache[key] = load()
            return cache[key]

    def forget(self, corpus: str | None = None) -> None:
        """Drop loaded indexes and rankers (after a rebuild or training) so the next question reloads them."""
        if corpus is None:
            names = {
                *self._retrievers,
                *self._parts,
                *self._judges,
                *(key[0] for key in list(self._editions)),
            }
        else:
            names = {corpus}
        for name in names:
            with self._lock(name):  # not while that corpus loads: the load would land after the drop
                for cache in (self._retrievers, self._parts, self._judges, self._sentences, self._decisions):
                    cache.pop(name, None)
                for key in [k for k in list(self._editions) if k[0] == name]:
                    del self._editions[key]
        with self._lock(ROUTER_LOCK):  # its channels and answered questions were read from the corpora
            self._routers.clear()

    def edition_retriever(self, edition: Edition) -> EditionRetriever:
        """The retriever of a past edition (lexical + dense fusion, that edition's navigator), loaded once."""
        return self._once(
            self._editions,
            (edition.corpus, edition.number, edition.content_hash),
            edition.corpus,
            lambda: self._load_edition(edition),
        )

    def _load_edition(self, edition: Edition) -> EditionRetriever:
        self.resources.require_corpus(edition.corpus)
        return EditionRetriever.load(self.resources.settings, edition, self.resources.embedder, self.config)

    def loaded(self, corpus: str) -> CorpusRetriever | None:
        return self._retrievers.get(corpus)

    def retriever(self, corpus: str) -> CorpusRetriever:
        """The retriever of a corpus (learned ranker or hybrid, by `RetrievalConfig.ranker`), loaded once."""
        return self._once(self._retrievers, corpus, corpus, lambda: self._load(corpus))

    def _load(self, corpus: str) -> CorpusRetriever:
        from bifrost.retrieval.ranking.ltr.features import FEATURES
        from bifrost.retrieval.ranking.ltr.model import glossary_mismatch, load_ranker
        from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever

        parts = self.parts(corpus)
        if not parts.has_entity_network:  # right after ingest: keywords, meaning and the navigator graph
            return parts.hybrid(self.config.model_copy(update={"use_eng": False}))
        if self.config.ranker != "hybrid":
            model = load_ranker(self.resources.settings, corpus, FEATURES)
            if model is not None:
                if warning := glossary_mismatch(model.card):
                    log.warning(warning)
                return LtrRetriever(parts.channels, parts.nav, model, self.config)
            if self.config.ranker == "ltr":
                raise NotFoundError(
                    f"no trained ranker for corpus {corpus!r}; run `bifrost train ranker --corpus {corpus} "
                    "--questions FILE`"
                )
        return parts.hybrid(self.config)

    def hand_ranked(self, corpus: str) -> str | None:
        """One line saying that ``corpus`` is ranked by the hand-set hybrid because it has no trained ranker
        (None when it has one, or when the hybrid was asked for)."""
        from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever

        if self.config.ranker == "hybrid" or isinstance(self.retriever(corpus), LtrRetriever):
            return None
        return (
            f"{corpus} is ranked by the hand-set hybrid: it has no trained ranker "
            f"(`bifrost train ranker --corpus {corpus} -q FILE`)"
        )

    def parts(self, corpus: str) -> CorpusParts:
        """The loaded indexes of a corpus (BM25, dense, entity network, navigator maps), loaded once."""
        return self._once(self._parts, corpus, corpus, lambda: self._load_parts(corpus))

    def _load_parts(self, corpus: str) -> CorpusParts:
        from bifrost.graph_builders.entities.extractors import make_entity_extractor
        from bifrost.graph_builders.entities.normalize import normalize_name
        from bifrost.graph_builders.entities.spacy_model import load_spacy
        from bifrost.retrieval.channels.bm25 import Bm25Ranker
        from bifrost.retrieval.channels.documents import index_folder
        from bifrost.retrieval.channels.entity_index import EngIndex
        from bifrost.retrieval.ranking.ltr.model import ranker_encoder

        res = self.resources
        res.require_corpus(corpus)
        index = EngIndex.load(res.sql, corpus, index_folder(res.settings.home, corpus))
        decomposer = ExtractorDecomposer(make_entity_extractor(res, corpus, "auto"), normalize_name)
        provisions = res.sql.provisions(corpus)
        bm25 = Bm25Ranker(res.settings)
        bm25.warm_up(corpus, provisions)
        dense = self.dense_ranker(corpus, provisions)
        encoder = ranker_encoder(res.settings, corpus)
        ranking_dense = self.dense_ranker(corpus, provisions, encoder) if encoder is not None else None
        decompose = lambda q: decomposer.decompose(q, corpus)  # noqa: E731
        named = named_finder(pack_of(corpus, res.sql.jurisdiction(corpus)), corpus, provisions)
        precedents, outside = self._precedent_index(corpus, bm25.tokenize, bm25.tokenize_all)
        spacy_model = res.settings.spacy_model
        parse = lambda text: load_spacy(spacy_model)(text)  # noqa: E731 - loaded on the first figure
        return CorpusParts(
            corpus=corpus,
            graph=res.graph,
            embedder=res.embedder,
            channels=Channels(
                bm25,
                dense,
                index,
                res.embedder,
                decompose,
                ranking_dense,
                named=named,
                precedents=precedents,
                parse=parse,
                outside=outside,
            ),
            nav=NavigatorIndex.build(
                provisions, res.sql.references(corpus, dangling=False), stored_requirements(res.sql, corpus)
            ),
            containers=frozenset(container_ids(provisions)),
            decomposer=decomposer,
            has_entity_network=not index.empty,
        )

    def _precedent_index(
        self,
        corpus: str,
        tokenize: Callable[[str], list[str]],
        tokenize_all: Callable[[list[str]], list[list[str]]] | None = None,
    ) -> tuple[PrecedentIndex | None, PrecedentIndex | None]:
        """The corpus's precedent bank as two search indexes: those citing a provision of the corpus (they
        vote) and those citing none of it (answered elsewhere: where a refusal points); None for an empty
        one."""
        from bifrost.core.store.precedent_tables import load_precedents
        from bifrost.retrieval.channels.documents import index_folder

        res = self.resources
        with res.sql.session() as s:
            bank = load_precedents(s, corpus)
        inside = [p for p in bank if p.resolved_ids]
        outside = [p for p in bank if not p.resolved_ids]
        folder = index_folder(res.settings.home, corpus)
        return tuple(  # type: ignore[return-value]
            PrecedentIndex.load(part, tokenize, res.embedder, folder, res.embedder.key, tokenize_all)
            if part
            else None
            for part in (inside, outside)
        )

    def prepare(self, corpus: str, questions: list[str], config: RetrievalConfig | None = None) -> None:
        """Batch the per-question work of many questions (see `CorpusParts.prepare`)."""
        self.parts(corpus).prepare(questions, config)

    def lookup(self, corpus: str) -> Callable[[str], Provision | None]:
        graph = self.resources.graph
        return lambda pid: graph.get_section(make_uid(corpus, pid))

    def ask(
        self,
        question: str,
        corpus: str,
        config: RetrievalConfig | None = None,
        edition: Edition | None = None,
        exclude: Collection[str] = (),
    ) -> Answer:
        """Answer a question with cited provisions, or refuse when nothing supports an answer.

        ``edition``, when given and not the corpus's current one, answers from that past edition
        only (its provisions, texts and references; see `bifrost.retrieval.edition_retriever`).
        ``exclude``: ids or source URLs of the question's own precedents (its own answer), never used.
        """
        question = (question or "").strip()
        if not question:
            raise BifrostError("the question is empty")
        read, long_note = condensed(question)
        if long_note is not None:  # a very long question: read as its channels can use it, said so
            answer = self.ask(read, corpus, config, edition, exclude)
            note = f"{answer.note}; {long_note}" if answer.note else long_note
            return answer.model_copy(update={"question": question, "note": note})
        t0 = time.perf_counter()
        if edition is not None and edition.number != self.resources.sql.edition(corpus).number:
            past = self.edition_retriever(edition)
            cfg = config or past.config
            result = past.retrieve(question, cfg)
            answer = self.answer(
                question, corpus, result, cfg, t0, lookup=past.lookup(), judge=None, planned=False
            )
            return answer.model_copy(update={"edition": edition, "note": past.note()})
        retr = self.retriever(corpus)
        cfg = config or retr.config
        if not self.parts(corpus).has_entity_network:
            cfg = cfg.model_copy(update={"use_eng": False})
            result = self.read_named(corpus, retr.retrieve(question, cfg), question, cfg, exclude)
            answer = self.answer(question, corpus, result, cfg, t0, lookup=self.lookup(corpus), judge=None)
            return answer.model_copy(update={"note": NO_ENTITY_NETWORK.format(corpus=corpus)})
        result = self.retrieve(question, corpus, cfg, exclude)
        return self.answer(
            question, corpus, result, cfg, t0, lookup=self.lookup(corpus), judge=self.judge(corpus)
        )

    def retrieve(
        self, question: str, corpus: str, cfg: RetrievalConfig | None = None, exclude: Collection[str] = ()
    ) -> RetrievalResult:
        """What `ask` retrieves for a question of the current edition (the named provisions first, the
        similar precedents read, its own left out), before the answer step."""
        from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever

        retr = self.retriever(corpus)
        cfg = cfg or retr.config
        result = (
            retr.retrieve(question, cfg, exclude)
            if isinstance(retr, LtrRetriever)
            else retr.retrieve(question, cfg)
        )
        return self.read_named(corpus, result, question, cfg, exclude)

    def read_named(
        self,
        corpus: str,
        result: RetrievalResult,
        question: str,
        cfg: RetrievalConfig,
        exclude: Collection[str] = (),
    ) -> RetrievalResult:
        """The result with the provisions the question names first (`bifrost.retrieval.ranking.named_first`)
        and the question's similar precedents, read here when the retriever did not read them."""
        channels = self.parts(corpus).channels
        result = read_named(result, question, channels, exclude, cfg.use_named, cfg.use_precedents)
        result = replace(
            result, facts=read_facts(question, result.figures)
        )  # the question read once, for every step after
        children = self.parts(corpus).nav.children
        return named_first(
            result,
            self.lookup(corpus),
            cfg.cite_max,
            question,
            channels.tokenize,
            lambda pid: bool(children.get(pid)),
            channels.loosen,
        )

    def answer(
        self,
        question: str,
        corpus: str,
        result: RetrievalResult,
        cfg: RetrievalConfig,
        t0: float | None = None,
        *,
        lookup: Callable[[str], Provision | None] | None = None,
        judge: AnswerabilityJudge | None = None,
        planned: bool = True,
        decision: Any = "stored",
    ) -> Answer:
        """The answer to a question from its retrieval result (`bifrost.retrieval.answer.build`: answered,
        "not stated" or refused); ``lookup`` reads the provisions quoted (default: the current edition's),
        ``judge`` decides answerability (None: the cosine rule), ``planned`` follows the navigator graph from
        the cited set (False: a past edition, whose maps are not loaded); ``decision``: the corpus's stored
        decision model (default, when ``planned``), None, or another one (a model fitted with a set left out,
        under evaluation)."""
        from bifrost.retrieval.answer import build as answer_step

        chat = self.resources.chat_model
        llm = None
        if chat is not None:
            from bifrost.retrieval.answer.llm import LlmAnswerer

            llm = LlmAnswerer(chat, self.resources.settings.prompts_dir).answer_plan
        model, warning = self.decision(corpus) if planned and decision == "stored" else (decision, None)
        answer = answer_step.answer(
            question,
            corpus,
            result,
            cfg,
            lookup=lookup or self.lookup(corpus),
            judge=judge,
            embedder=self.answer_embedder(corpus),
            planner=self.planner(corpus) if planned else None,
            llm=llm,
            t0=t0,
            decision=model if isinstance(model, DecisionModel) else None,
        )
        if planned and answer.outcome is not Outcome.ANSWERED:
            answer = self.pointed(answer, result, corpus)
        if planned and not answer.refused and not self.parts(corpus).nav.requirements:
            warning = (
                f"{corpus} has no requirement records yet (a home built before them): "
                f"`bifrost build navigator --corpus {corpus}` adds them, the cited rules' conditions and "
                "the governing rule"
            )
        if warning and not answer.refused:
            answer.warnings.append(warning)
        return answer

    def pointed(self, answer: Answer, result: RetrievalResult, corpus: str) -> Answer:
        """The answer with where similar questions were answered, when the nearest answered questions lie
        outside the corpus (`answerability.elsewhere.pointed`)."""
        from bifrost.retrieval.answerability.elsewhere import pointed

        if not result.outside:
            return answer
        pack = pack_of(corpus, self.resources.sql.jurisdiction(corpus))
        others = [c for c in self.resources.sql.corpora() if c != corpus]
        graph = self.resources.graph

        def holder(cited: str) -> str | None:
            return next((c for c in others if graph.get_section(make_uid(c, cited)) is not None), None)

        return pointed(answer, result, corpus, lambda c: pack.place_of(c, corpus), holder)
