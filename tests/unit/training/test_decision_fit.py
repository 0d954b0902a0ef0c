"""The decision's choices, made out of fold: a verdict kind is given only past a margin whose verdicts were
right at least 90% of the time on enough questions (none otherwise), a "depends" only when it can name what
it depends on, the cited set is the governing candidate and those as probable as the threshold, and the
ranker's order is kept when the selector is no better at the first place."""

from __future__ import annotations

import numpy as np

from bifrost.training.decision import fit as F


def test_a_margin_is_kept_only_where_its_verdicts_reach_the_precision_on_enough_questions():
    scores = [{"yes": 5.0 - i * 0.1, "no": -1.0} for i in range(20)]
    labels = ["yes"] * 10 + ["no", "yes"] * 5
    margins = F.choose_margins(scores, labels, [True] * 20)
    # the twelve best are right eleven times (0.92); with the thirteenth it falls to 0.85 and stays below 0.9
    assert margins["yes"] == scores[11]["yes"]
    assert "no" not in margins  # never right enough
    assert F.choose_margins(scores[:5], labels[:5], [True] * 5) == {}  # too few to say


def test_a_depends_is_given_only_when_nameable():
    least = {"depends": 0.0}
    assert F.given({"depends": 1.0}, least, nameable=True) == "depends"
    assert F.given({"depends": 1.0}, least, nameable=False) is None


def test_the_cited_set_is_the_governing_candidate_and_those_past_the_threshold():
    p = np.array([0.2, 0.9, 0.6, 0.1])
    assert F.cited_of(["a", "b", "c", "d"], p, 0.5) == ["b", "c"]
    assert F.cited_of(["a", "b", "c", "d"], p, 1.1) == ["b"]
    assert F.cited_of(["a", "b", "c", "d"], p, 0.5, order="ranker") == ["a", "b", "c"]


def test_the_state_bar_is_the_least_probability_whose_stated_rules_are_right_often_enough():
    from bifrost.training.decision.fit import LEAST_GIVEN, NEVER, choose_state_bar

    # 10 sure and right, then 10 at 0.4 of which 3 right: from 0.9 down, 10 of 10; down to 0.4, 13 of 20
    hits = [(0.9, True)] * 10 + [(0.4, i < 3) for i in range(10)]
    assert choose_state_bar(hits, right=0.7) == 0.9
    assert choose_state_bar(hits, right=0.6) == 0.4  # 13 / 20 = 0.65 states them all
    # fewer than LEAST_GIVEN questions say nothing about how often a bar is right: never state
    assert choose_state_bar([(0.95, True)] * (LEAST_GIVEN - 1), right=0.7) == NEVER
    assert choose_state_bar([(0.5, False)] * 20, right=0.7) == NEVER
