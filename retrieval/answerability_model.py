"""A trained answerability model as it lives in the home, and the judge that applies it.

The model is a small JSON card, ``models/answerability-<corpus>.json``: corpus, embedding model, the
retrieval mode whose scores it reads (``ltr`` or ``hybrid``), feature list, standardization,
logistic coefficients, the refusal threshold (chosen in cross-validation for a target false-refusal
rate), the question files and their hashes, and the cross-validated figures. Loading checks the card
as the ranker's loading does: none or unreadable -> None (the cosine rule is used, with a warning
when unreadable); made for another corpus, embedding model or feature list -> `ConfigError`.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings
from bifrost.core.types import Provision
from bifrost.retrieval.answerability_features import FEATURE_GROUPS, FEATURES, Passage, RetrievalSignals, Term, TOP_FACT, features, vector
from bifrost.retrieval.encoder.pairs import own_text
from bifrost.retrieval.support.model import TOP as SUPPORT_TOP
from bifrost.retrieval.support.model import SupportScorer, support_folder
from bifrost.retrieval.channels import Channels
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.result import RetrievalResult

log = logging.getLogger(__name__)
SUPPORT_FEATURES = FEATURE_GROUPS["support"]
CONTEXT_CHARS = 300
"""How much of a passage's parent text counts as its context (the subject a list item belongs to)."""


@dataclass
class AnswerabilityCard:
    """A logistic model over `FEATURES` with its refusal threshold and what it was trained on."""

    corpus: str
    embedding_model: str
    retriever: str
    features: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    threshold: float
    answer_threshold: float | None = None  # below it (and above `threshold`): "not stated"; None: two outcomes
    target_false_refusal: float = 0.05
    questions: list[dict[str, str]] = field(default_factory=list)  # [{"path", "sha256"}]
    ranker_sha256: str = ""  # the ranker whose scores its features read (retriever "ltr"): another one, another scale
    glossary: str = ""  # the glossary setting its lexical features were computed with
    cv: dict[str, Any] = field(default_factory=dict)
    trained_at: str = ""

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.mean) == len(self.scale) == len(self.coef) == n):
            raise ValueError(f"{n} features but {len(self.mean)} means, {len(self.scale)} scales, {len(self.coef)} coefficients")
        numbers = [*self.mean, *self.scale, *self.coef, self.intercept, self.threshold]
        if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in numbers):
            raise ValueError("a coefficient, mean, scale or threshold is not a finite number")
        if any(s <= 0 for s in self.scale) or not 0.0 <= self.threshold <= 1.0:
            raise ValueError("scales must be positive and the threshold a probability")
        if self.answer_threshold is not None and not self.threshold <= self.answer_threshold <= 1.0:
            raise ValueError("the answer threshold must be a probability at or above the refusal threshold")
        if self.retriever not in ("ltr", "hybrid"):
            raise ValueError(f"retriever {self.retriever!r}: use 'ltr' or 'hybrid'")

    def probability(self, row: Sequence[float]) -> float:
        """P(answerable) of one feature row (in `features` order)."""
        z = (np.asarray(row, dtype=np.float64) - np.asarray(self.mean)) / np.asarray(self.scale)
        logit = float(z @ np.asarray(self.coef) + self.intercept)
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, logit))))


def card_path(settings: Settings, corpus: str) -> Path:
    """Where the answerability card of ``corpus`` lives in the home."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", corpus)
    return settings.home / "models" / f"answerability-{safe}.json"


def save_card(settings: Settings, card: AnswerabilityCard) -> Path:
    """Write the card atomically (a reader never sees half a card)."""
    path = card_path(settings, card.corpus)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(card), indent=2))
    tmp.replace(path)
    return path


def check_card(card: AnswerabilityCard, corpus: str, embedding_model: str, features: Sequence[str] = FEATURES) -> None:
    """Refuse a card made for another corpus, embedding model or feature list (one line naming both)."""
    retrain = f"retrain it with `bifrost train answerability --corpus {corpus} --questions FILE`"
    if card.corpus != corpus:
        raise ConfigError(f"the answerability model {card_path_name(card.corpus)} was trained for corpus {card.corpus!r}, not {corpus!r}; {retrain}")
    if card.embedding_model != embedding_model:
        raise ConfigError(f"the answerability model of {corpus!r} was trained with embedding model {card.embedding_model!r}, "
                          f"not {embedding_model!r}; {retrain}")
    unknown = [f for f in card.features if f not in features]
    if unknown:
        raise ConfigError(f"the answerability model of {corpus!r} uses feature {unknown[0]!r}, which this version lacks; {retrain}")


def card_path_name(corpus: str) -> str:
    return f"answerability-{re.sub(r'[^A-Za-z0-9._-]+', '_', corpus)}.json"


def load_card(settings: Settings, corpus: str) -> AnswerabilityCard | None:
    """The corpus's answerability card, or None when there is none or it cannot be read (then the cosine
    rule refuses). A card made for another corpus, embedding model or feature list raises `ConfigError`."""
    path = card_path(settings, corpus)
    if not path.exists():
        return None
    try:
        card = AnswerabilityCard(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError) as e:
        log.warning("answerability model %s is unreadable (%s); refusing by the cosine rule", path, str(e).splitlines()[0] if str(e) else type(e).__name__)
        return None
    check_card(card, corpus, settings.embedding_model)
    return card


def retriever_of(result: RetrievalResult) -> str:
    """The retrieval mode behind a result, as cards name it."""
    return "ltr" if result.mode == "ltr" else "hybrid"


class FeatureReader:
    """Reads the answerability features of a question's retrieval result from the corpus's indexes.
    Light to build: it holds references to indexes the pipeline already loaded."""

    def __init__(self, channels: Channels, nav: NavigatorIndex, lookup: Callable[[str], Provision | None],
                 support: SupportScorer | None = None) -> None:
        self.channels, self.nav, self.lookup, self.support = channels, nav, lookup, support

    def terms(self, question: str) -> list[Term]:
        bm25 = self.channels.bm25
        return [Term(t, bm25.document_frequency(t)) for t in dict.fromkeys(bm25.tokenize(question))]

    def passage(self, pid: str) -> Passage | None:
        """A provision's text with its context: its own heading or term, its section's heading, its parent's text."""
        p = self.lookup(pid)
        if p is None:
            return None
        section_id = self.nav.section.get(pid, pid)
        section = self.lookup(section_id) if section_id != pid else None
        parent = self.lookup(p.parent_id) if p.parent_id and p.parent_id != section_id else None
        context = " ".join(x for x in (p.term or "", p.heading, section.heading if section else "",
                                       (parent.text or "")[:CONTEXT_CHARS] if parent else "") if x)
        return Passage(pid, p.text or "", context)

    def signals(self, result: RetrievalResult) -> RetrievalSignals:
        scores = tuple(sorted((it.score for it in result.items), reverse=True)[:2])
        entities = list(result.decomposition.entities)
        best: list[float] = []
        if entities:
            vectors = self.channels.embedder.embed(entities)
            best = [m[0].score if m else 0.0 for m in self.channels.index.match_entities(vectors, 1, -1.0)]
        return RetrievalSignals(float(result.relevance), scores, max(best, default=0.0), float(np.mean(best)) if best else 0.0)

    def row(self, question: str, result: RetrievalResult) -> dict[str, float]:
        """Every feature of the question behind ``result`` (the retrieved items, best first)."""
        passages = [p for p in (self.passage(it.id) for it in result.items[:TOP_FACT]) if p is not None]
        return features(question, passages, self.terms(question), len(self.channels.ids), self.signals(result),
                        self.channels.bm25.tokenize, support_scores=self.support_scores(question, [it.id for it in result.items]))

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
                log.warning("the answerability model of %s was trained behind the %s retriever, this answer came from %s; "
                            "refusing by the cosine rule", self.card.corpus, self.card.retriever, retriever_of(result))
            return None
        t0 = time.perf_counter()
        p = self.card.probability(vector(self.reader.row(question, result), self.card.features))
        log.debug("answerability %.3f (threshold %.3f) in %.3fs", p, self.threshold, time.perf_counter() - t0)
        return p


def stale_reason(card: AnswerabilityCard, ranker: str, glossary: str) -> str | None:
    """Why a card does not fit the ranker (sha256, "" for the hybrid) and glossary in use, else None."""
    if card.retriever == "ltr" and ranker and card.ranker_sha256 != ranker:
        return "the ranker was retrained since (its thresholds were chosen on the old ranker's score scale)"
    if card.glossary != glossary:
        return f"it was trained with glossary {card.glossary or 'none'!r}, not {glossary or 'none'!r}"
    return None


def load_judge(settings: Settings, corpus: str, channels: Channels, nav: NavigatorIndex,
               lookup: Callable[[str], Provision | None], ranker: str = "", glossary: str = "") -> AnswerabilityJudge | None:
    """The judge of a corpus when an answerability model is stored for it and fits the ranker (sha256) and
    glossary in use, else None (a stale one with one warning line: the cosine rule refuses)."""
    card = load_card(settings, corpus)
    if card is None:
        return None
    if (why := stale_reason(card, ranker, glossary)) is not None:
        log.warning("the answerability model of %s is not used: %s; refusing by the cosine rule until "
                    "`bifrost train answerability --corpus %s`", corpus, why, corpus)
        return None
    support = SupportScorer.load(settings.home, corpus) if any(f in SUPPORT_FEATURES for f in card.features) else None
    if support is None and any(f in SUPPORT_FEATURES for f in card.features):
        raise ConfigError(f"the answerability model of {corpus!r} reads the support scorer, which is missing from "
                          f"{support_folder(settings.home, corpus)}; retrain it with `bifrost train answerability`")
    return AnswerabilityJudge(card, FeatureReader(channels, nav, lookup, support))
