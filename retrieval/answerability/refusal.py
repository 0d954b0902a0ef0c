"""The refusal rule, in one place, with three outcomes: answer; "not stated" (the closest provisions
are quoted and none of them states it: the evidence is weak); refuse (clearly out of scope). Refuse
when nothing was retrieved; otherwise, when an answerability model is stored for the corpus, refuse
below its refusal threshold and say "not stated" below its answer threshold; without one (or when it
cannot judge this result), refuse when the question's best similarity with any provision is below the
configured threshold."""

from __future__ import annotations

from typing import Protocol

from bifrost.core.answer_types import Outcome


class _Scored(Protocol):
    items: list
    relevance: float


class Judge(Protocol):
    """An answerability model: a score per (question, retrieval result), refused below `threshold`,
    "not stated" below `answer_threshold`."""

    @property
    def threshold(self) -> float: ...

    @property
    def answer_threshold(self) -> float: ...

    def score(self, question: str, result) -> float | None: ...


def outcome_of(
    result: _Scored, refuse_below: float, question: str = "", judge: Judge | None = None
) -> Outcome:
    """Refused when ``result`` holds nothing, or ``judge`` scores it below its threshold, or (no judge, or a
    judge that cannot score this result) its relevance is under ``refuse_below``; not stated when the judge
    scores it below its answer threshold; else answered."""
    if not result.items:
        return Outcome.REFUSED
    score = judge.score(question, result) if judge is not None else None
    if score is None:
        return Outcome.REFUSED if result.relevance < refuse_below else Outcome.ANSWERED
    if score < judge.threshold:
        return Outcome.REFUSED
    return Outcome.NOT_STATED if score < judge.answer_threshold else Outcome.ANSWERED


def should_refuse(
    result: _Scored, refuse_below: float, question: str = "", judge: Judge | None = None
) -> bool:
    """Whether `outcome_of` refuses (a "not stated" answer is not a refusal)."""
    return outcome_of(result, refuse_below, question, judge) is Outcome.REFUSED
