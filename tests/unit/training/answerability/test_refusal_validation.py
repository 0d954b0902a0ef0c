"""Refusal across question styles: thresholds chosen on out-of-set scores (the refusal floor holds on
every set seen), three outcomes, and the curve of unanswerable questions caught against answerable lost."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bifrost.training.answerability import refusal_validation as rv
from bifrost.training.answerability.run import fit_examples
from bifrost.eval.questions import Question


def test_the_refusal_threshold_is_the_lowest_per_set_one_so_no_set_loses_more_than_its_share():
    scores = np.array([0.10, 0.50, 0.60, 0.70, 0.80, 0.30, 0.35, 0.90, 0.95, 0.99])
    answerable = np.ones(10, dtype=bool)
    sources = ["a"] * 5 + ["b"] * 5
    th = rv.choose_thresholds(scores, answerable, sources, refuse_target=0.2, open_target=0.5)
    assert th.refuse == 0.35  # the lower of the two sets' thresholds
    for name in ("a", "b"):
        mask = np.array(sources) == name
        assert np.mean(scores[mask] < th.refuse) <= 0.2  # neither set loses more than its share
    assert th.answer >= th.refuse


def test_outcomes_are_refused_not_stated_and_answered_and_nothing_retrieved_is_refused():
    th = rv.Thresholds(refuse=0.2, answer=0.6)
    got = th.outcomes(np.array([0.1, 0.4, 0.7, 0.9]), np.array([False, False, False, True]))
    assert got.tolist() == [0, 1, 2, 0]


def test_the_curve_catches_more_unanswerable_questions_as_more_answerable_ones_are_lost():
    rng = np.random.default_rng(0)
    scores = np.concatenate([rng.uniform(0.4, 1.0, 50), rng.uniform(0.0, 0.6, 50)])
    answerable = np.array([True] * 50 + [False] * 50)
    points = rv.curve(scores, answerable)
    caught = [p["unanswerable_caught"] for p in points]
    assert caught == sorted(caught) and points[0]["answerable_lost"] == 0.0


@dataclass
class Ex:
    question: Question
    source: str
    row: np.ndarray
    empty: bool = False

    @property
    def answerable(self) -> bool:
        return self.question.answerable


def test_a_set_left_out_is_scored_by_a_model_and_thresholds_that_never_saw_it():
    rng = np.random.default_rng(1)
    examples = []
    for s in ("a", "b", "c"):
        for n in range(30):
            ans = n % 2 == 0
            examples.append(
                Ex(
                    Question(id=f"{s}{n}", question=f"q {s}{n}", gold=("x",) if ans else (), answerable=ans),
                    s,
                    np.array([rng.normal(1.0 if ans else -1.0), rng.normal()]),
                )
            )
    runs = rv.left_out(examples, [0, 1], fit_examples, refuse_target=0.05, open_target=0.2)
    assert [r.name for r in runs] == ["a", "b", "c"]
    figures = rv.set_figures(runs, examples)
    assert figures["a"]["auroc"]["mean"] > 0.8 and figures["a"]["answerable"]["refused"]["mean"] <= 0.2


def test_support_scorers_are_cross_fitted_by_set_or_by_fold_with_one_set():
    assert [s.name for s in rv.support_splits(["a", "b", "a"], ["1", "2", "3"], 2)] == ["a", "b"]
    assert all(s.name.startswith("fold") for s in rv.support_splits(["a", "a", "a"], ["1", "2", "3"], 2))
