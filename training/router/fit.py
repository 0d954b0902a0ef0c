"""Fitting the corpus router on answered questions: one logistic model over every (question, corpus) row, and
the figures a router is judged by."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def fit_weights(x: np.ndarray, y: np.ndarray) -> tuple[list[float], float]:
    """Logistic weights over rows (questions, corpora, columns) labelled (questions, corpora) 0/1."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(max_iter=2000).fit(x.reshape(-1, x.shape[-1]), y.reshape(-1))
    return [float(w) for w in model.coef_[0]], float(model.intercept_[0])


def probabilities(x: np.ndarray, weights: Sequence[float], intercept: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(np.asarray(x, np.float64) @ np.asarray(weights) + intercept)))


def figures(p: np.ndarray, y: np.ndarray) -> dict[str, float | int | None]:
    """How a router scored some questions (probabilities and labels (questions, corpora)): the likeliest
    corpus right, among the questions some corpus answers, and the AUROC of the likeliest corpus's probability
    telling those from the questions no corpus answers."""
    some = y.any(axis=1)
    top, first = p.max(axis=1), p.argmax(axis=1)
    right = y[np.arange(len(y)), first].astype(bool)
    out: dict[str, float | int | None] = {
        "questions": int(len(y)),
        "answered_by_some": int(some.sum()),
        "answered_by_none": int((~some).sum()),
        "first_right": round(float(np.mean(right[some])), 4) if some.any() else None,
        "auroc_none": None,
    }
    if some.any() and (~some).any():
        from sklearn.metrics import roc_auc_score

        out["auroc_none"] = round(float(roc_auc_score(~some, -top)), 4)
    return out
