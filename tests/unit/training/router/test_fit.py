"""Fitting the router: citations cut out of a title before it is a question, the weights, and the figures a
router is judged by."""

from __future__ import annotations

import numpy as np

from bifrost.training.router import fit as F
from bifrost.training.router.run import forward_year, stripped


def test_a_titles_citations_are_cut_out_before_it_is_a_question():
    assert stripped("Application of 1910.106(d) to packaged alcoholic beverages.") == (
        "Application of to packaged alcoholic beverages."
    )
    assert stripped("Clarification of 29 CFR Part 1926 Subpart M and §1904.7(b)(1) for roofers") == (
        "Clarification of Subpart M and for roofers"
    )


def test_a_router_learns_the_letters_share_and_is_scored_on_its_first_choice_and_auroc():
    rng = np.random.default_rng(0)
    n = 400
    y = np.zeros((n, 2), bool)
    y[: n // 2, 0] = True  # half answered by corpus 0, a quarter by corpus 1, a quarter by none
    y[n // 2 : 3 * n // 4, 1] = True
    x = rng.uniform(0, 0.3, (n, 2, 4))
    x[..., 3] = np.where(y, rng.uniform(0.6, 1.0, y.shape), rng.uniform(0.0, 0.3, y.shape))
    weights, intercept = F.fit_weights(x, y)
    assert weights[3] > 0
    scored = F.figures(F.probabilities(x, weights, intercept), y)
    assert scored["first_right"] == 1.0 and scored["auroc_none"] == 1.0
    assert scored["answered_by_some"] == 300 and scored["answered_by_none"] == 100
    flipped = F.figures(F.probabilities(x, weights, intercept)[:, ::-1], y)
    assert flipped["first_right"] == 0.0


def test_validation_runs_forward_from_the_year_two_thirds_were_answered_by():
    assert forward_year(np.array([0, 1990, 1991, 1992, 2000, 2001, 2010])) == 2001
