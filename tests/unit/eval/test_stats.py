"""Statistics on small hand-checkable cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bifrost.eval.stats import bootstrap_ci, fixed_broken, friedman, holm, mcnemar_exact, wilcoxon_p
from tests.conftest import import_or_skip


def test_bootstrap_ci_brackets_the_mean_and_collapses_on_constant_data():
    ci = bootstrap_ci([0, 1, 0, 1, 1, 0, 1, 1])
    assert ci.mean == pytest.approx(5 / 8) and ci.low <= ci.mean <= ci.high and ci.n == 8
    assert 0.2 < ci.low < 0.5 and 0.8 < ci.high <= 1.0
    const = bootstrap_ci([0.5, 0.5, float("nan")])
    assert (const.mean, const.low, const.high, const.n) == (0.5, 0.5, 0.5, 2)


def test_holm_adjusts_step_down_and_keeps_order():
    adj = holm({"a": 0.01, "b": 0.04, "c": 0.03})
    assert adj == pytest.approx({"a": 0.03, "c": 0.06, "b": 0.06})


def test_mcnemar_exact_on_discordant_pairs():
    a = [True] * 6 + [False] * 2 + [True] * 5
    b = [False] * 6 + [True] * 2 + [True] * 5
    m = mcnemar_exact(a, b)
    assert (m.only_a, m.only_b) == (6, 2)
    assert m.pvalue == pytest.approx(2 * (1 + 8 + 28) / 256)  # two-sided binomial, n=8, k<=2
    assert mcnemar_exact([True], [True]).pvalue == 1.0


def test_fixed_and_broken_questions():
    fb = fixed_broken(["q1", "q2", "q3"], [True, False, True], [False, True, True])
    assert fb == {"fixed": ["q2"], "broken": ["q1"]}


def test_wilcoxon_identical_is_one_and_clear_shift_is_small():
    assert wilcoxon_p([1, 2, 3], [1, 2, 3]) == 1.0
    a = [0.1 * i for i in range(12)]
    assert wilcoxon_p(a, [x + 0.5 + 0.01 * i for i, x in enumerate(a)]) < 0.01


def test_friedman_needs_three_systems_and_detects_a_consistent_ranking():
    with pytest.raises(ValueError):
        friedman({"a": [1], "b": [2]})
    scores = {"a": [0.1] * 10, "b": [0.5] * 10, "c": [0.9] * 10}
    scores["b"] = [0.5 + 0.01 * i for i in range(10)]
    fr = friedman(scores)
    assert fr.statistic == pytest.approx(20.0) and fr.pvalue < 0.001
    assert set(fr.pairwise_holm) == {"a vs b", "a vs c", "b vs c"}
    assert all(fr.pairwise_holm[k] >= fr.pairwise[k] for k in fr.pairwise)


def test_auroc_matches_sklearn_with_ties_and_is_nan_with_one_class():
    from bifrost.eval.stats import auroc

    roc_auc_score = import_or_skip("sklearn.metrics", "eval").roc_auc_score
    labels = [True, True, False, False, True, False, True]
    scores = [0.9, 0.5, 0.5, 0.1, 0.7, 0.8, 0.5]
    assert auroc(labels, scores) == pytest.approx(roc_auc_score([int(y) for y in labels], scores))
    assert math.isnan(auroc([True, True], [0.1, 0.2]))


def test_bootstrap_auroc_brackets_the_point_estimate():
    from bifrost.eval.stats import bootstrap_auroc

    rng = np.random.default_rng(0)
    labels = rng.random(150) < 0.5
    scores = rng.random(150) + labels * 0.6
    ci = bootstrap_auroc(labels, scores, n_resamples=500)
    assert ci.low < ci.mean < ci.high and ci.n == 150 and ci.mean > 0.8
    assert math.isnan(bootstrap_auroc([False, False], [0.1, 0.2]).mean)
