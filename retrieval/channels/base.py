"""The retrieval channels of one corpus (`Channels`: BM25, dense, the Entity Network, the question
decomposer) and what they say about one question (`Evidence`: BM25 and dense scores of every
provision, entity and triple matches, the question's decomposition). Gathered once per question;
the learned ranker's candidates and features and the answerability judge read it."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

import numpy as np

from bifrost.core.embeddings import Embedder
from bifrost.core.precedent_types import ResolvedCite
from bifrost.core.quantities import Quantity
from bifrost.core.stopwatch import Stopwatch
from bifrost.graph_builders.navigator.named import NamedFinder
from bifrost.graph_builders.requirements.question_figures import Parse, read_figures
from bifrost.retrieval.channels.bm25 import Bm25Ranker
from bifrost.retrieval.channels.dense import DenseRanker
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import Decomposition
from bifrost.retrieval.channels.entity_index import EngIndex
from bifrost.retrieval.channels.entities import EntityEvidence, MatchMemo, match_entities, match_triples
from bifrost.retrieval.channels.precedents import PrecedentIndex, PrecedentVotes, Similar

OUTSIDE_SHOWN = 5
"""Answered questions outside the corpus read per question."""


@dataclass
class Evidence:
    """Channel scores of one question over one corpus (`EntityEvidence` per provision of the ENG)."""

    question: str
    bm25: np.ndarray
    dense: np.ndarray
    entities: dict[str, EntityEvidence] = field(default_factory=dict)
    triples: dict[str, tuple[float, str]] = field(default_factory=dict)
    decomposition: Decomposition = field(default_factory=Decomposition)
    coverage: np.ndarray | None = None  # share of the question's indexed terms each provision holds
    coverage_idf: np.ndarray | None = None  # the same, IDF-weighted
    # the embedding model's cosines when ``dense`` comes from an adapted encoder
    cosine: np.ndarray | None = None
    terms: tuple[int, int] = (0, 0)  # the question's distinct terms, and how many the corpus holds
    named: list[ResolvedCite] = field(default_factory=list)  # provisions the question names
    votes: PrecedentVotes = field(default_factory=PrecedentVotes)  # what similar answered questions cite
    figures: tuple[tuple[Quantity, str], ...] = ()  # the question's figures, each with what it measures
    timings: dict[str, float] = field(default_factory=dict)  # seconds of each gathering stage
    # the most similar answered questions that cite nothing of the corpus (where a refusal points)
    outside: list[Similar] = field(default_factory=list)

    @property
    def relevance(self) -> float:
        """Best cosine between the question and any provision under the embedding model (the refusal
        signal, calibrated for that model even when the ranker reads an adapted encoder's scores)."""
        scores = self.dense if self.cosine is None else self.cosine
        return float(scores.max()) if len(scores) else 0.0

    @property
    def entity_evidence(self) -> float:
        return max((e.best_cosine for e in self.entities.values()), default=0.0)


class Channels:
    """The retrieval channels of one corpus, sharing one document order (BM25 and dense ids agree).

    ``ranking_dense``: a dense index under an encoder adapted to the corpus's questions, whose scores the
    learned ranker reads in place of ``dense`` (the hybrid and the refusal signal keep ``dense``)."""

    def __init__(
        self,
        bm25: Bm25Ranker,
        dense: DenseRanker,
        index: EngIndex,
        embedder: Embedder,
        decompose: Callable[[str], Decomposition],
        ranking_dense: DenseRanker | None = None,
        memo: MatchMemo | None = None,
        named: NamedFinder | None = None,
        precedents: PrecedentIndex | None = None,
        parse: Parse | None = None,
        outside: PrecedentIndex | None = None,
    ) -> None:
        """``named`` finds the provisions a question names; ``precedents``: the corpus's answered
        questions; ``parse``: the sentence parser that reads what a question's lengths measure (None: the
        words around each figure only); ``outside``: answered questions whose citations all lie outside the
        corpus (never votes: the neighbourhood a refusal points to)."""
        if bm25.ids != dense.ids or (ranking_dense is not None and ranking_dense.ids != dense.ids):
            raise ValueError("BM25 and dense indexes disagree on the documents; rebuild the index")
        self.bm25, self.dense, self.index, self.embedder, self.decompose = (
            bm25,
            dense,
            index,
            embedder,
            decompose,
        )
        self.ranking_dense = ranking_dense
        self.named, self.precedents, self.parse, self.outside = named, precedents, parse, outside
        self.ids = dense.ids
        self.position = {pid: i for i, pid in enumerate(self.ids)}
        self.memo = memo if memo is not None else MatchMemo()  # filled by `prepare` only

    def with_ranking_dense(self, ranking_dense: DenseRanker | None) -> Channels:
        """The same channels (and entity-match memo) with another adapted dense index."""
        return Channels(
            self.bm25,
            self.dense,
            self.index,
            self.embedder,
            self.decompose,
            ranking_dense,
            self.memo,
            self.named,
            self.precedents,
            self.parse,
            self.outside,
        )

    def tokenize(self, text: str) -> list[str]:
        """Tokens of ``text`` as the lexical index reads them."""
        return self.bm25.tokenize(text)

    def names(self, question: str) -> list[ResolvedCite]:
        """The provisions the question names (resolved or not), in the order written."""
        return self.named.find(question) if self.named is not None else []

    def loosen(self, text: str) -> str:
        """``text`` with the rulebook's loose citation forms written as printed (as `names` reads it)."""
        return self.named.loosen(text) if self.named is not None else text

    def votes(self, question: str, exclude: Collection[str] = ()) -> PrecedentVotes:
        """What the question's most similar precedents cite, its own (``exclude``: ids, source URLs) left
        out."""
        return self.precedents.votes(question, exclude) if self.precedents is not None else PrecedentVotes()

    def outside_near(self, question: str, exclude: Collection[str] = ()) -> list[Similar]:
        """The question's most similar answered questions among those that cite nothing of the corpus (its own
        left out), best first; none without such a bank."""
        if self.outside is None:
            return []
        return self.outside.votes(question, exclude, voters=OUTSIDE_SHOWN).similar

    def prepare(self, decompositions: list[Decomposition], cfg: RetrievalConfig) -> None:
        """Match the entities and triples of many questions at once (see `MatchMemo`)."""
        if not cfg.use_eng or self.index.empty:
            return
        names = [n for d in decompositions for n in d.entities]
        triples = [t for d in decompositions for t in (*d.triples, *(d.swapped if cfg.swap else ()))]
        self.memo.fill(self.index, self.embedder, names, [tuple(t) for t in triples], cfg)

    def gather(self, question: str, cfg: RetrievalConfig, exclude: Collection[str] = ()) -> Evidence:
        """Every channel's evidence for one question; ``exclude``: its own precedents (ids, source URLs). Each
        stage's seconds are in ``Evidence.timings`` (what a new question waits for, stage by stage)."""
        clock = Stopwatch()
        d = self.decompose(question)
        clock.lap("parse")
        triples = list(d.triples) + (list(d.swapped) if cfg.swap else [])
        texts = [question, *d.entities, *(p for t in triples for p in (t[0], t[1].replace("_", " "), t[2]))]
        self.embedder.embed(list(dict.fromkeys(texts)))  # one model call; the embedder caches the parts
        clock.lap("encode")
        cosine = self.dense.score_all(question)
        ranking = cosine if self.ranking_dense is None else self.ranking_dense.score_all(question)
        clock.lap("dense")
        ev = Evidence(
            question,
            self.bm25.score_all(question),
            ranking,
            decomposition=d,
            cosine=None if self.ranking_dense is None else cosine,
        )
        ev.coverage, ev.coverage_idf = self.bm25.coverage(question)
        ev.terms = self.bm25.profile(question)
        clock.lap("bm25")
        ev.named = self.names(question) if cfg.use_named else []
        ev.figures = read_figures(question, self.parse)
        clock.lap("named_figures")
        ev.votes = self.votes(question, exclude) if cfg.use_precedents else PrecedentVotes()
        ev.outside = self.outside_near(question, exclude) if cfg.use_precedents else []
        clock.lap("precedents")
        if cfg.use_eng:
            ev.entities = match_entities(self.index, self.embedder, question, d.entities, cfg, self.memo)
            ev.triples = match_triples(self.index, self.embedder, triples, cfg, self.memo)
        clock.lap("entities_triples")
        ev.timings = clock.laps
        return ev
