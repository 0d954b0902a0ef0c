"""The refusal rule, in one place: refuse when nothing was retrieved; otherwise, when an answerability
model is stored for the corpus, refuse when its score is below its threshold; without one (or when it
cannot judge this result), refuse when the question's best similarity with any provision is below the
configured threshold."""

from __future__ import annotations

from typing import Protocol


class _Scored(Protocol):
    items: list
    relevance: float


class Judge(Protocol):
    """An answerability model: a score per (question, retrieval result), refused below `threshold`."""

    @property
    def threshold(self) -> float: ...

    def score(self, question: str, result) -> float | None: ...


def should_refuse(result: _Scored, refuse_below: float, question: str = "", judge: Judge | None = None) -> bool:
    """True when ``result`` holds nothing, or ``judge`` scores it below its threshold, or (no judge, or a
    judge that cannot score this result) its relevance is under ``refuse_below``."""
    if not result.items:
        return True
    score = judge.score(question, result) if judge is not None else None
    if score is not None:
        return score < judge.threshold
    return result.relevance < refuse_below
