"""Paired statistics over per-question scores: bootstrap CIs, Friedman + Wilcoxon/Holm, exact McNemar.

All functions are pure: they take per-question values aligned by question and return numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class CI:
    """Mean of per-question values with a bootstrap confidence interval."""

    mean: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def finite(values: Sequence[float]) -> np.ndarray:
    """Values as a float array without NaNs (questions where a metric is undefined)."""
    a = np.asarray(values, dtype=float)
    return a[~np.isnan(a)]


def bootstrap_ci(
    values: Sequence[float], confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> CI:
    """Percentile bootstrap CI of the mean (scipy.stats.bootstrap); NaNs dropped, constant data -> point."""
    a = finite(values)
    if a.size == 0:
        return CI(math.nan, math.nan, math.nan, 0)
    m = float(a.mean())
    if a.size == 1 or np.all(a == a[0]):
        return CI(m, m, m, int(a.size))
    res = stats.bootstrap(
        (a,),
        np.mean,
        confidence_level=confidence,
        n_resamples=n_resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return CI(m, float(res.confidence_interval.low), float(res.confidence_interval.high), int(a.size))


def holm(pvalues: Mapping[str, float]) -> dict[str, float]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1)."""
    items = sorted(pvalues.items(), key=lambda kv: kv[1])
    m, running, out = len(items), 0.0, {}
    for i, (key, p) in enumerate(items):
        running = max(running, min(1.0, (m - i) * p))
        out[key] = running
    return out


def wilcoxon_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p of paired values (1.0 when every difference is zero)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = ~(np.isnan(x) | np.isnan(y))
    d = x[keep] - y[keep]
    if d.size == 0 or np.all(d == 0):
        return 1.0
    return float(stats.wilcoxon(x[keep], y[keep], zero_method="wilcox").pvalue)


@dataclass(frozen=True)
class Friedman:
    """Friedman test across systems plus pairwise Wilcoxon p-values, raw and Holm-adjusted."""

    statistic: float
    pvalue: float
    pairwise: dict[str, float]
    pairwise_holm: dict[str, float]


def friedman(scores: Mapping[str, Sequence[float]]) -> Friedman:
    """Friedman chi-square over >= 3 systems' paired scores, then pairwise Wilcoxon with Holm."""
    names = list(scores)
    if len(names) < 3:
        raise ValueError(f"Friedman needs at least 3 systems, got {len(names)}: {names}")
    mat = np.array([np.asarray(scores[n], dtype=float) for n in names])
    mat = mat[:, ~np.isnan(mat).any(axis=0)]
    if mat.shape[1] < 2 or np.all(mat == mat[0]):
        stat, p = 0.0, 1.0
    else:
        stat, p = (float(v) for v in stats.friedmanchisquare(*mat))
    pair = {
        f"{a} vs {b}": wilcoxon_p(scores[a], scores[b]) for i, a in enumerate(names) for b in names[i + 1 :]
    }
    return Friedman(stat, p, pair, holm(pair))


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test on paired hit/miss: b = only A hits, c = only B hits."""

    only_a: int
    only_b: int
    pvalue: float


def mcnemar_exact(hits_a: Sequence[bool], hits_b: Sequence[bool]) -> McNemar:
    """Two-sided exact binomial test on the discordant pairs (p = 1 when there are none)."""
    if len(hits_a) != len(hits_b):
        raise ValueError(f"paired hits differ in length: {len(hits_a)} vs {len(hits_b)}")
    b = sum(1 for x, y in zip(hits_a, hits_b) if x and not y)
    c = sum(1 for x, y in zip(hits_a, hits_b) if y and not x)
    p = float(stats.binomtest(b, b + c, 0.5).pvalue) if b + c else 1.0
    return McNemar(b, c, p)


def fixed_broken(ids: Sequence[str], hits_a: Sequence[bool], hits_b: Sequence[bool]) -> dict[str, list[str]]:
    """Questions B fixes (A misses, B hits) and breaks (A hits, B misses)."""
    return {
        "fixed": [q for q, x, y in zip(ids, hits_a, hits_b) if y and not x],
        "broken": [q for q, x, y in zip(ids, hits_a, hits_b) if x and not y],
    }


def auroc(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """Area under the ROC curve of ``scores`` as a detector of positive ``labels`` (Mann-Whitney U over
    midranks, so ties count one half); nan with one class."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=float)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return math.nan
    ranks = stats.rankdata(s)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def bootstrap_auroc(
    labels: Sequence[bool],
    scores: Sequence[float],
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> CI:
    """AUROC with a percentile bootstrap CI over questions (resamples holding one class are skipped)."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=float)
    point = auroc(y, s)
    if math.isnan(point):
        return CI(math.nan, math.nan, math.nan, int(y.size))
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_resamples):
        idx = rng.integers(0, y.size, y.size)
        v = auroc(y[idx], s[idx])
        if not math.isnan(v):
            values.append(v)
    alpha = (1 - confidence) / 2
    return CI(point, float(np.quantile(values, alpha)), float(np.quantile(values, 1 - alpha)), int(y.size))
