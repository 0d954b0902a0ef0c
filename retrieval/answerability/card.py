"""The stored answerability model: a small JSON card, ``models/answerability-<corpus>.json``.

It holds the corpus, embedding model, the retrieval mode whose scores it reads (``ltr`` or ``hybrid``),
feature list, standardization, logistic coefficients, the refusal threshold (chosen in cross-validation for a
target false-refusal rate), the question files and their hashes, the ranker (and, on old cards, the glossary)
it was trained behind, and the cross-validated figures. Loading checks the card as the ranker's loading does:
none or unreadable -> None (the cosine rule is used, with a warning when unreadable); made for another corpus,
embedding model or feature list -> `ConfigError`; trained behind another ranker or the removed glossary ->
`stale_reason`.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.atomic_files import atomic_file
from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings
from bifrost.retrieval.answerability.features import FEATURES

log = logging.getLogger(__name__)


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
    # below it (and above `threshold`): "not stated"; None: two outcomes
    answer_threshold: float | None = None
    target_false_refusal: float = 0.05
    questions: list[dict[str, str]] = field(default_factory=list)  # [{"path", "sha256"}]
    # the ranker whose scores its features read (retriever "ltr"): another one, another scale
    ranker_sha256: str = ""
    glossary: str = ""  # the removed site-words glossary its features were computed with ("" = none)
    cv: dict[str, Any] = field(default_factory=dict)
    trained_at: str = ""

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.mean) == len(self.scale) == len(self.coef) == n):
            raise ValueError(
                f"{n} features but {len(self.mean)} means, {len(self.scale)} scales, {len(self.coef)} "
                "coefficients"
            )
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
    with atomic_file(path) as tmp:
        tmp.write_text(json.dumps(asdict(card), indent=2))
    return path


def check_card(
    card: AnswerabilityCard, corpus: str, embedding_model: str, features: Sequence[str] = FEATURES
) -> None:
    """Refuse a card made for another corpus, embedding model or feature list (one line naming both)."""
    retrain = f"retrain it with `bifrost train answerability --corpus {corpus} --questions FILE`"
    if card.corpus != corpus:
        raise ConfigError(
            f"the answerability model {card_path_name(card.corpus)} was trained for corpus {card.corpus!r}, "
            f"not {corpus!r}; {retrain}"
        )
    if card.embedding_model != embedding_model:
        raise ConfigError(
            f"the answerability model of {corpus!r} was trained with embedding model "
            f"{card.embedding_model!r}, "
            f"not {embedding_model!r}; {retrain}"
        )
    unknown = [f for f in card.features if f not in features]
    if unknown:
        raise ConfigError(
            f"the answerability model of {corpus!r} uses feature {unknown[0]!r}, which this version lacks; "
            f"{retrain}"
        )


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
        log.warning(
            "answerability model %s is unreadable (%s); refusing by the cosine rule",
            path,
            str(e).splitlines()[0] if str(e) else type(e).__name__,
        )
        return None
    check_card(card, corpus, settings.embedding_model)
    return card


def stale_reason(card: AnswerabilityCard, ranker: str) -> str | None:
    """Why a card does not fit the ranker in use (sha256, "" for the hybrid), else None."""
    if card.retriever == "ltr" and ranker and card.ranker_sha256 != ranker:
        return "the ranker was retrained since (its thresholds were chosen on the old ranker's score scale)"
    if card.glossary:  # the site-words glossary was removed: its lexical features are not computed any more
        return f"it was trained with the site-words glossary {card.glossary!r}, which was removed"
    return None
