"""The answerability model's fitting and validation: a logistic regression with an L2 penalty, its
threshold for a target rate of answerable questions kept, and k-fold out-of-fold scores."""

from __future__ import annotations
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
import numpy as np
from bifrost.core.extras import require_extra
from bifrost.training.answerability import refusal_validation as rv
from bifrost.eval.splits import fold_of
from bifrost.eval.questions import Question
from bifrost.eval.stats import bootstrap_auroc, bootstrap_ci
from bifrost.retrieval.answerability.features import FEATURES, columns_without

L2 = 1.0
"""Penalty on standardized coefficients (fixed, not tuned: a dozen features, a few hundred questions)."""


@dataclass
class Example:
    """One question with its feature row and what the corpus can do with it."""

    question: Question
    source: str
    row: np.ndarray
    relevance: float
    empty: bool = False  # nothing retrieved: refused whatever the model says
    # the retrieved provision ids, best first (the support scorer reads the top ones)
    ranked: tuple[str, ...] = ()

    @property
    def answerable(self) -> bool:
        return self.question.answerable

    @property
    def reason(self) -> str:
        """Why an unanswerable question is so (its first tag's category, e.g. "other-part"), else ""."""
        tags = self.question.extra.get("tags") or []
        return "" if self.answerable else (str(tags[0]).split(":")[0] if tags else "untagged")


@dataclass(frozen=True)
class Logistic:
    """Standardization and coefficients of a fitted logistic regression."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        z = (np.atleast_2d(x) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-np.clip(z @ self.coef + self.intercept, -50, 50)))


Fitter = Callable[[Sequence[Example], Sequence[int]], Logistic]
"""What fits a model on examples and feature columns (`fit_examples` by default)."""


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2) -> Logistic:
    """scikit-learn's L2-penalized logistic regression (C = 1 / ``l2``) on standardized columns, each class
    weighted to half the total ("balanced"); kept as the plain `Logistic` record the card stores."""
    require_extra("eval", "sklearn")
    from sklearn.linear_model import LogisticRegression

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(set(y.tolist())) < 2:
        raise ValueError(
            "answerability needs answerable and unanswerable training questions; one class is missing"
        )
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    fit = LogisticRegression(C=1.0 / l2, class_weight="balanced", tol=1e-8, max_iter=10_000).fit(
        (x - mean) / scale, y
    )
    return Logistic(mean, scale, fit.coef_[0].copy(), float(fit.intercept_[0]))


def threshold_for(answerable_scores: Sequence[float], target: float) -> float:
    """The highest threshold (refuse strictly below it) that refuses at most ``target`` of these scores."""
    s = np.sort(np.asarray(answerable_scores, dtype=np.float64))
    if s.size == 0:
        raise ValueError("no answerable question to choose a threshold on")
    return float(s[int(np.floor(target * s.size))])


def fit_examples(examples: Sequence[Example], columns: Sequence[int]) -> Logistic:
    """The logistic model of these examples over the given feature columns."""
    return fit_logistic(
        np.vstack([e.row[list(columns)] for e in examples]), np.array([e.answerable for e in examples])
    )


def out_of_fold(
    examples: Sequence[Example],
    folds: int,
    columns: Sequence[int],
    salt: str = "",
    fitter: Fitter = fit_examples,
) -> np.ndarray:
    """A score for every example from a model fit on the other folds (nan where those lack a class)."""
    scores = np.full(len(examples), np.nan)
    for k in range(folds):
        test = [i for i, e in enumerate(examples) if fold_of(e.question.id, folds, salt) == k]
        train = [e for i, e in enumerate(examples) if fold_of(e.question.id, folds, salt) != k]
        if test and len({e.answerable for e in train}) == 2:
            model = fitter(train, columns)
            scores[test] = model.probability(np.vstack([examples[i].row[list(columns)] for i in test]))
    return scores


@dataclass
class CvRun:
    """Cross-validated score, refusal and threshold of every question."""

    scores: np.ndarray
    refused: np.ndarray
    thresholds: list[float] = field(default_factory=list)
    outcomes: np.ndarray | None = None  # 0 refused, 1 not stated, 2 answered (with an open target)


def cross_validate(
    examples: Sequence[Example],
    folds: int,
    target: float,
    drop: set[str] = frozenset(),
    fitter: Fitter = fit_examples,
    only: Sequence[str] = (),
    open_target: float | None = None,
) -> CvRun:
    """Outer k folds; in each, the threshold comes from an inner cross-validation of the training folds
    (and, with ``open_target``, the "not stated" threshold too). ``drop`` leaves feature groups out;
    ``only`` keeps just the named features."""
    columns = [FEATURES.index(f) for f in only] if only else columns_without(set(drop))
    run = CvRun(np.full(len(examples), np.nan), np.zeros(len(examples), dtype=bool))
    if open_target is not None:
        run.outcomes = np.full(len(examples), 2)
    for k in range(folds):
        test = [i for i, e in enumerate(examples) if fold_of(e.question.id, folds) == k]
        train = [e for e in examples if fold_of(e.question.id, folds) != k]
        if not test:
            continue
        model = fitter(train, columns)
        inner = out_of_fold(train, folds, columns, salt="inner", fitter=fitter)
        held = [s for s, e in zip(inner, train) if e.answerable and not np.isnan(s)]
        if not held:  # too few questions for an inner split holding both classes: the training scores
            held = model.probability(np.vstack([e.row[columns] for e in train if e.answerable])).tolist()
        threshold = threshold_for(held, target)
        run.scores[test] = model.probability(np.vstack([examples[i].row[columns] for i in test]))
        empty = np.array([examples[i].empty for i in test])
        run.refused[test] = (run.scores[test] < threshold) | empty
        run.thresholds.append(threshold)
        if run.outcomes is not None:
            th = rv.Thresholds(threshold, max(threshold, threshold_for(held, open_target)))
            run.outcomes[test] = th.outcomes(run.scores[test], empty)
    return run


def figures(
    examples: Sequence[Example], scores: np.ndarray, refused: np.ndarray, seed: int = 0
) -> dict[str, Any]:
    """AUROC and refusal rates with 95% bootstrap CIs, overall, per question file and per reason."""
    ans = np.array([e.answerable for e in examples])

    def rates(mask: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {"n": int(mask.sum()), "answerable": int((ans & mask).sum())}
        if (mask & ~ans).any():
            out["refusal_unanswerable"] = bootstrap_ci(
                refused[mask & ~ans].astype(float), seed=seed
            ).as_dict()
        if (mask & ans).any():
            out["false_refusal"] = bootstrap_ci(refused[mask & ans].astype(float), seed=seed).as_dict()
        if (mask & ans).any() and (mask & ~ans).any():
            out["auroc"] = bootstrap_auroc(ans[mask], scores[mask], seed=seed).as_dict()
        return out

    everything = np.ones(len(examples), dtype=bool)
    sources = sorted({e.source for e in examples})
    reasons = sorted({e.reason for e in examples if not e.answerable})
    return {
        **rates(everything),
        "by_source": {s: rates(np.array([e.source == s for e in examples])) for s in sources},
        "by_reason": {
            r: rates(np.array([(not e.answerable) and e.reason == r for e in examples])) for r in reasons
        },
    }
