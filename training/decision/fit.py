"""Fitting the decision: the governing-rule selector (LightGBM, binary: "a provision the answer needs") with
an isotonic calibration fitted on out-of-fold margins; the second-rule threshold and the answer plan chosen
for citation F1 on out-of-fold probabilities; one classifier per verdict kind and the least margin each must
pass, chosen out of fold for precision. Every choice here is made on the training sets alone: out of fold
means by set (each training set predicted by a model fitted on the others), or by question-id folds with one
set."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bifrost.eval.metrics import set_prf
from bifrost.eval.splits import fold_of
from bifrost.retrieval.answer.decision import CITE_MOST, governing_order, ranked_order
from bifrost.retrieval.answer.decision_model import VERDICT_KINDS, calibrated
from bifrost.retrieval.answer.governing import FEATURES
from bifrost.retrieval.answer.verdict_features import verdict_row
from bifrost.training.decision.cases import Case

SELECTOR_PARAMS: dict[str, Any] = {
    "objective": "binary",
    "learning_rate": 0.05,
    "n_estimators": 200,
    "num_leaves": 7,
    "min_child_samples": 20,
    "subsample": 0.8,
    "subsample_freq": 1,
    "colsample_bytree": 0.8,
    "reg_lambda": 1.0,
    "verbose": -1,
    "n_jobs": 1,
}
VERDICT_PARAMS: dict[str, Any] = {
    **SELECTOR_PARAMS,
    "n_estimators": 100,
    "num_leaves": 4,
    "min_child_samples": 10,
}
CITE_GRID = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.1)
"""Probabilities a second rule must reach to be cited (1.1: never)."""
PLANS = ("core", "exceptions", "exceptions+definitions")
"""Relations the answer plan may follow from the cited rules."""
PRECISION = 0.9
"""A verdict kind is given only past a margin whose out-of-fold precision reaches this."""
LEAST_GIVEN = 8
"""... on at least this many out-of-fold verdicts (fewer say nothing about precision)."""
INNER_FOLDS = 3
STATE_RIGHT = 0.7
"""A governing rule is stated as the one that decides only past a probability whose out-of-fold stated rules
were needed provisions at least this often (below it the answer is a shortlist)."""
NEVER = 1.1
"""A bar no probability reaches: every answer is a shortlist."""


def _lgbm(params: dict[str, Any], x: np.ndarray, y: np.ndarray, seed: int) -> Any:
    import lightgbm

    if len(set(y.tolist())) < 2:
        raise ValueError("a classifier needs both classes among its training rows")
    model = lightgbm.LGBMClassifier(**{**params, "random_state": seed})
    model.fit(x, y)
    return model.booster_


def margins(booster: Any, x: np.ndarray) -> np.ndarray:
    if len(x) == 0:
        return np.zeros(0)
    return np.asarray(booster.predict(x, raw_score=True, num_threads=1), dtype=np.float64)


def fit_selector(cases: Sequence[Case], seed: int) -> Any:
    if not any(len(c.at) for c in cases):
        raise ValueError("no training question has a needed provision among its candidates")
    x = np.vstack([c.rows for c in cases if len(c.at)])
    y = np.concatenate([c.labels for c in cases if len(c.at)])
    return _lgbm(SELECTOR_PARAMS, x, y, seed)


def splits_of(cases: Sequence[Case]) -> list[tuple[list[int], list[int]]]:
    """(train, test) positions: each set left out in turn, or question-id folds when there is one set."""
    sources = sorted({c.source for c in cases})
    if len(sources) > 1:
        return [
            (
                [i for i, c in enumerate(cases) if c.source != s],
                [i for i, c in enumerate(cases) if c.source == s],
            )
            for s in sources
        ]
    folds = [fold_of(c.question.id, INNER_FOLDS, salt="decision") for c in cases]
    return [
        ([i for i, f in enumerate(folds) if f != k], [i for i, f in enumerate(folds) if f == k])
        for k in range(INNER_FOLDS)
    ]


def out_of_fold(
    cases: Sequence[Case], fit: Callable[[list[Case]], Any], predict: Callable[[Any, Case], Any]
) -> list[Any]:
    """Per case, ``predict`` by a model ``fit`` on the cases outside its split (`splits_of`)."""
    out: list[Any] = [None] * len(cases)
    for train, test in splits_of(cases):
        if not test:
            continue
        model = fit([cases[i] for i in train])
        for i in test:
            out[i] = predict(model, cases[i])
    return out


def governing_calibration(
    cases: Sequence[Case], raw: Sequence[np.ndarray], probs: Sequence[np.ndarray], order: str
) -> dict[str, list[float]]:
    """The governing rule's own calibration: its out-of-fold margin against whether it is a needed
    provision."""
    at = [(c, r, governing_order(p, c.rows, order)[0]) for c, r, p in zip(cases, raw, probs) if len(c.ids)]
    first = [(r[i], c.labels[i]) for c, r, i in at]
    return calibration_of(np.array([m for m, _ in first]), np.array([y for _, y in first]))


def calibration_of(raw: np.ndarray, labels: np.ndarray) -> dict[str, list[float]]:
    """The isotonic map from raw margins to the share of needed provisions (knots, increasing)."""
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0, increasing=True)
    iso.fit(raw, labels.astype(float))
    return {"x": [float(v) for v in iso.X_thresholds_], "y": [float(v) for v in iso.y_thresholds_]}


def governing_hits(
    cases: Sequence[Case],
    raw: Sequence[np.ndarray],
    probs: Sequence[np.ndarray],
    order: str,
    governing: dict[str, list[float]],
) -> list[tuple[float, bool]]:
    """Per case with candidates: (the governing rule's out-of-fold probability, whether it is needed)."""
    out = []
    for c, r, p in zip(cases, raw, probs):
        if not len(c.ids):
            continue
        at = governing_order(p, c.rows, order)[0]
        out.append((float(calibrated(np.array([r[at]]), governing)[0]), bool(c.labels[at])))
    return out


def choose_state_bar(hits: Sequence[tuple[float, bool]], right: float = STATE_RIGHT) -> float:
    """The least probability from which the stated rules (those at or above it) were needed at least ``right``
    of the time on at least `LEAST_GIVEN` questions: the bar that states most; `NEVER` when none is."""
    pairs = sorted(hits, key=lambda t: -t[0])
    bar, good = NEVER, 0
    for n, (p, ok) in enumerate(pairs, start=1):
        good += ok
        if n < len(pairs) and pairs[n][0] == p:  # ties: a probability shared by the next one is not a cut
            continue
        if n >= LEAST_GIVEN and good / n >= right:
            bar = p
    return bar


def cited_of(
    ids: Sequence[str],
    p: np.ndarray,
    cite_also: float,
    order: str = "selector",
    rows: np.ndarray | None = None,
) -> list[str]:
    """What the decision cites: the governing candidate, and the next ones past ``cite_also`` (with ``rows``,
    a rule about an activity the question sets aside never first)."""
    if not len(ids):
        return []
    ranked = governing_order(p, rows, order) if rows is not None else ranked_order(p, order)
    return [ids[ranked[0]]] + [ids[i] for i in ranked[1:CITE_MOST] if p[i] >= cite_also]


def choose_order(cases: Sequence[Case], probs: Sequence[np.ndarray]) -> str:
    """ "selector" when its out-of-fold governing candidate is a needed provision more often than the ranker's
    first; else "ranker" (a selector no better than the ranker adds only noise to the choice)."""
    hits = {
        order: np.mean(
            [
                bool(c.ids) and c.ids[governing_order(p, c.rows, order)[0]] in set(c.question.gold)
                for c, p in zip(cases, probs)
            ]
        )
        for order in ("selector", "ranker")
    }
    return "selector" if hits["selector"] > hits["ranker"] else "ranker"


@dataclass(frozen=True)
class CiteChoice:
    cite_also: float
    plan: str
    f1: float


def choose_citing(
    cases: Sequence[Case],
    probs: Sequence[np.ndarray],
    planned: Callable[[Case, list[str], str], list[str]],
    order: str = "selector",
) -> CiteChoice:
    """The second-rule threshold and the plan with the best mean citation F1 (the simplest of equals: the
    higher threshold, the smaller plan)."""
    best: CiteChoice | None = None
    for plan in PLANS:
        for tau in sorted(CITE_GRID, reverse=True):
            f1 = float(
                np.mean(
                    [
                        set_prf(planned(c, cited_of(c.ids, p, tau, order, c.rows), plan), c.question.gold).f1
                        for c, p in zip(cases, probs)
                    ]
                )
            )
            if best is None or f1 > best.f1 + 1e-9:
                best = CiteChoice(tau, plan, f1)
    assert best is not None
    return best


# --- verdicts -------------------------------------------------------------------------------------------


def verdict_x(case: Case, p: np.ndarray, order_by: str = "selector") -> np.ndarray:
    """The verdict row of a case under the selector probabilities ``p``."""
    order = governing_order(p, case.rows, order_by)
    inp = case.inputs
    return verdict_row(
        case.rows, p, order, case.sentences, inp.facts.stance, inp.question, inp.tokenize, inp.words
    )


def nameable_depends(case: Case, p: np.ndarray, order_by: str = "selector") -> bool:
    """Whether a "depends" could name what it depends on: the governing rule states a condition or an
    exception the question leaves open."""
    gov = governing_order(p, case.rows, order_by)[0]
    row = case.rows[gov]
    return row[FEATURES.index("cond_open")] + row[FEATURES.index("exc_open")] > 0


def fit_verdicts(rows: Sequence[np.ndarray], labels: Sequence[str], seed: int) -> dict[str, Any]:
    """One classifier per verdict kind (that kind against the others) over one row per labelled question; a
    kind with too few examples gets none (none at all when no question is labelled)."""
    y_all = np.asarray(labels)
    out: dict[str, Any] = {}
    if not len(rows):
        return out
    rows = np.vstack(rows)
    for kind in VERDICT_KINDS:
        y = (y_all == kind).astype(int)
        if 3 <= y.sum() <= len(y) - 3:
            out[kind] = _lgbm(VERDICT_PARAMS, rows, y, seed)
    return out


def verdict_margins(models: dict[str, Any], row: np.ndarray) -> dict[str, float]:
    return {kind: float(margins(m, row.reshape(1, -1))[0]) for kind, m in models.items()}


def given(scores: dict[str, float], least: dict[str, float], nameable: bool) -> str | None:
    """The verdict given: the kind past its margin by the most ("depends" only when nameable)."""
    best, by = None, 0.0
    for kind, m in scores.items():
        if kind not in least or m < least[kind] or (kind == "depends" and not nameable):
            continue
        if best is None or m - least[kind] > by:
            best, by = kind, m - least[kind]
    return best


def choose_margins(
    scores: Sequence[dict[str, float]], labels: Sequence[str], nameable: Sequence[bool]
) -> dict[str, float]:
    """Per kind, the least margin whose out-of-fold verdicts of that kind reach `PRECISION` on at least
    `LEAST_GIVEN` questions, the one that gives most; a kind no margin makes precise enough is never given."""
    out: dict[str, float] = {}
    for kind in VERDICT_KINDS:
        pairs = [
            (s[kind], lab == kind)
            for s, lab, ok in zip(scores, labels, nameable)
            if kind in s and (kind != "depends" or ok)
        ]
        if not pairs:
            continue
        pairs.sort(key=lambda t: -t[0])
        right = 0
        for n, (m, ok) in enumerate(pairs, start=1):
            right += ok
            # ties: a margin shared by the next pair is not a cut
            if n < len(pairs) and pairs[n][0] == m:
                continue
            if n >= LEAST_GIVEN and right / n >= PRECISION:
                out[kind] = m
    return out
