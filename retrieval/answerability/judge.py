"""The judge that applies a stored answerability card (`card.py`) to a question's retrieval result,
and the reader of its features from the corpus's indexes (the support scorer's among them)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

import numpy as np

from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings
from bifrost.core.types import Provision
from bifrost.retrieval.answerability.card import AnswerabilityCard, load_card, stale_reason
from bifrost.retrieval.answerability.features import (
    FEATURE_GROUPS,
    Passage,
    RetrievalSignals,
    Term,
    TOP_FACT,
    features,
    vector,
)
from bifrost.retrieval.answerability.support.model import TOP as SUPPORT_TOP
from bifrost.retrieval.answerability.support.model import SupportScorer, support_folder
from bifrost.retrieval.channels.base import Channels
from bifrost.core.provisions import own_text
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.result import RetrievalResult

log = logging.getLogger(__name__)
SUPPORT_FEATURES = FEATURE_GROUPS["support"]
CONTEXT_CHARS = 300
"""How much of a passage's parent text counts as its context (the subject a list item belongs to)."""


def retriever_of(result: RetrievalResult) -> str:
    """The retrieval mode behind a result, as cards name it."""
    return "ltr" if result.mode == "ltr" else "hybrid"


NEAREST = 5
"""Answered questions (of both banks) whose share from outside the corpus is a feature and a refusal's cue."""


def neighbours(result: RetrievalResult) -> tuple[list[float], list[float]]:
    """The cosines of the question's most similar answered questions citing the corpus, and citing none of it,
    best first."""
    inside = sorted((s.cosine for s in (result.votes.similar if result.votes else [])), reverse=True)
    outside = sorted((s.cosine for s in (result.outside or [])), reverse=True)
    return inside, outside


def outside_share(inside: list[float], outside: list[float], nearest: int = NEAREST) -> float:
    """The share of the ``nearest`` most similar answered questions that cite nothing of the corpus."""
    pool = sorted([(c, 0) for c in inside] + [(c, 1) for c in outside], reverse=True)[:nearest]
    return sum(k for _, k in pool) / len(pool) if pool else 0.0


class FeatureReader:
    """Reads the answerability features of a question's retrieval result from the corpus's indexes.
    Light to build: it holds references to indexes the pipeline already loaded."""

    def __init__(
        self,
        channels: Channels,
        nav: NavigatorIndex,
        lookup: Callable[[str], Provision | None],
        support: SupportScorer | None = None,
    ) -> None:
        self.channels, self.nav, self.lookup, self.support = channels, nav, lookup, support

    def terms(self, question: str) -> list[Term]:
        bm25 = self.channels.bm25
        return [Term(t, bm25.document_frequency(t)) for t in dict.fromkeys(bm25.tokenize(question))]

    def passage(self, pid: str) -> Passage | None:
        """A provision's text with its context: its own heading or term, its section's heading, its
        parent's text."""
        p = self.lookup(pid)
        if p is None:
            return None
        section_id = self.nav.section.get(pid, pid)
        section = self.lookup(section_id) if section_id != pid else None
        parent = self.lookup(p.parent_id) if p.parent_id and p.parent_id != section_id else None
        context = " ".join(
            x
            for x in (
                p.term or "",
                p.heading,
                section.heading if section else "",
                (parent.text or "")[:CONTEXT_CHARS] if parent else "",
            )
            if x
        )
        return Passage(pid, p.text or "", context)

    def signals(self, result: RetrievalResult) -> RetrievalSignals:
        scores = tuple(sorted((it.score for it in result.items), reverse=True)[:2])
        entities = list(result.decomposition.entities)
        best: list[float] = []
        if entities:
            vectors = self.channels.embedder.embed(entities)
            best = [m[0].score if m else 0.0 for m in self.channels.index.match_entities(vectors, 1, -1.0)]
        inside, outside = neighbours(result)
        return RetrievalSignals(
            float(result.relevance),
            scores,
            max(best, default=0.0),
            float(np.mean(best)) if best else 0.0,
            inside_top=inside[0] if inside else 0.0,
            outside_top=outside[0] if outside else 0.0,
            outside_share=outside_share(inside, outside),
        )

    def row(self, question: str, result: RetrievalResult) -> dict[str, float]:
        """Every feature of the question behind ``result`` (the retrieved items, best first)."""
        passages = [p for p in (self.passage(it.id) for it in result.items[:TOP_FACT]) if p is not None]
        # the question's facts, read once in `ask`
        ask = result.facts.ask if result.facts is not None else None
        return features(
            question,
            passages,
            self.terms(question),
            len(self.channels.ids),
            self.signals(result),
            self.channels.bm25.tokenize,
            ask=ask,
            support_scores=self.support_scores(question, [it.id for it in result.items]),
        )

    def support_scores(self, question: str, ranked: Sequence[str]) -> list[float]:
        """The support scorer's scores of the top `SUPPORT_TOP` provisions ([] without a scorer)."""
        if self.support is None:
            return []
        texts = [own_text(p) for p in (self.lookup(pid) for pid in ranked[:SUPPORT_TOP]) if p is not None]
        return self.support.score(question, texts).tolist()


class AnswerabilityJudge:
    """A stored card applied to retrieval results: P(answerable), refused below the card's threshold."""

    def __init__(self, card: AnswerabilityCard, reader: FeatureReader) -> None:
        self.card, self.reader = card, reader
        self._warned = False

    @property
    def threshold(self) -> float:
        return self.card.threshold

    @property
    def answer_threshold(self) -> float:
        """Below it, "not stated" (the card's threshold when it has no second one: two outcomes)."""
        return self.card.answer_threshold if self.card.answer_threshold is not None else self.card.threshold

    def score(self, question: str, result: RetrievalResult) -> float | None:
        """P(answerable), or None when the model cannot judge this result (made behind another retriever)."""
        if retriever_of(result) != self.card.retriever:
            if not self._warned:
                self._warned = True
                log.warning(
                    "the answerability model of %s was trained behind the %s retriever, this answer came "
                    "from %s; "
                    "refusing by the cosine rule",
                    self.card.corpus,
                    self.card.retriever,
                    retriever_of(result),
                )
            return None
        t0 = time.perf_counter()
        p = self.card.probability(vector(self.reader.row(question, result), self.card.features))
        log.debug("answerability %.3f (threshold %.3f) in %.3fs", p, self.threshold, time.perf_counter() - t0)
        return p


def load_judge(
    settings: Settings,
    corpus: str,
    channels: Channels,
    nav: NavigatorIndex,
    lookup: Callable[[str], Provision | None],
    ranker: str = "",
) -> AnswerabilityJudge | None:
    """The judge of a corpus when an answerability model is stored for it and fits the ranker (sha256) in
    use, else None (a stale one with one warning line: the cosine rule refuses)."""
    card = load_card(settings, corpus)
    if card is None:
        return None
    if (why := stale_reason(card, ranker)) is not None:
        log.warning(
            "the answerability model of %s is not used: %s; refusing by the cosine rule until "
            "`bifrost train answerability --corpus %s`",
            corpus,
            why,
            corpus,
        )
        return None
    support = (
        SupportScorer.load(settings.home, corpus)
        if any(f in SUPPORT_FEATURES for f in card.features)
        else None
    )
    if support is None and any(f in SUPPORT_FEATURES for f in card.features):
        raise ConfigError(
            f"the answerability model of {corpus!r} reads the support scorer, which is missing from "
            f"{support_folder(settings.home, corpus)}; retrain it with `bifrost train answerability`"
        )
    return AnswerabilityJudge(card, FeatureReader(channels, nav, lookup, support))
