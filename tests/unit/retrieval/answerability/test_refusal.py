"""The one refusal rule: nothing retrieved -> refuse; a model -> its score against its threshold; no
model (or a model that cannot judge this result) -> the best cosine against `refuse_below`."""

from __future__ import annotations

from types import SimpleNamespace

from bifrost.core.answer_types import Outcome
from bifrost.retrieval.answerability.refusal import outcome_of, should_refuse


class FakeJudge:
    def __init__(
        self, score: float | None, threshold: float = 0.5, answer_threshold: float | None = None
    ) -> None:
        self._score, self.threshold, self.asked = score, threshold, []
        self.answer_threshold = threshold if answer_threshold is None else answer_threshold

    def score(self, question, result):
        self.asked.append(question)
        return self._score


def result(relevance: float, items: int = 1) -> SimpleNamespace:
    return SimpleNamespace(items=list(range(items)), relevance=relevance)


def test_nothing_retrieved_is_refused_whatever_the_model_says():
    assert should_refuse(result(0.9, items=0), 0.45, "q", FakeJudge(0.99))


def test_without_a_model_the_cosine_rule_decides():
    assert should_refuse(result(0.40), 0.45)
    assert not should_refuse(result(0.50), 0.45)


def test_with_a_model_its_score_against_its_threshold_decides_not_the_cosine():
    high_cosine, low_cosine = result(0.95), result(0.10)
    judge = FakeJudge(0.3, threshold=0.5)
    assert should_refuse(high_cosine, 0.45, "Is a permit needed?", judge) and judge.asked == [
        "Is a permit needed?"
    ]
    assert not should_refuse(low_cosine, 0.45, "q", FakeJudge(0.7, threshold=0.5))
    assert not should_refuse(result(0.2), 0.45, "q", FakeJudge(0.5, threshold=0.5))  # refuse strictly below


def test_a_model_that_cannot_judge_a_result_leaves_it_to_the_cosine_rule():
    assert should_refuse(result(0.40), 0.45, "q", FakeJudge(None))
    assert not should_refuse(result(0.50), 0.45, "q", FakeJudge(None))


def test_three_outcomes_refuse_below_the_threshold_and_say_not_stated_below_the_answer_threshold():
    judge = lambda s: FakeJudge(s, threshold=0.2, answer_threshold=0.6)  # noqa: E731
    assert outcome_of(result(0.9), 0.45, "q", judge(0.1)) is Outcome.REFUSED
    assert outcome_of(result(0.9), 0.45, "q", judge(0.4)) is Outcome.NOT_STATED
    assert outcome_of(result(0.9), 0.45, "q", judge(0.6)) is Outcome.ANSWERED
    assert not should_refuse(result(0.9), 0.45, "q", judge(0.4))  # "not stated" is not a refusal


def test_the_judge_is_asked_once_per_question():
    judge = FakeJudge(0.4, threshold=0.2, answer_threshold=0.6)
    outcome_of(result(0.9), 0.45, "q", judge)
    assert judge.asked == ["q"]
