"""k-fold cross-validation of the learned ranker: a question is only ever scored by a model that
did not see it. Baselines are scored on the same questions; ablations drop one feature group."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from bifrost.eval.metrics import both_at, hierarchy_prf, ranking_metrics, set_prf
from bifrost.eval.splits import Split, fold_of, k_fold
from bifrost.eval.stats import bootstrap_ci
from bifrost.retrieval.ranking.ltr.features import FEATURE_GROUPS, FEATURES, columns_without
from bifrost.retrieval.ranking.ltr.model import LGBM_PARAMS, PARAM_GRID, monotone_constraints
from bifrost.retrieval.ranking.ltr.retriever import cut_cited
from bifrost.training.ranker.dataset import Group

Related = Callable[[str, str], bool]
DELTAS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)
TOP_N = 20


class Fitted(NamedTuple):
    """A fitted booster and the model size (`PARAM_GRID` entry) it was fitted with."""

    booster: Any
    size: dict[str, Any]


def fit(
    groups: Sequence[Group], columns: Sequence[int], size: dict[str, Any] | None = None, seed: int = 0
) -> Any:
    """A LambdaRank booster on the trainable groups (see `fit_sized`, which also says the size chosen)."""
    return fit_sized(groups, columns, size, seed).booster


def fit_sized(
    groups: Sequence[Group], columns: Sequence[int], size: dict[str, Any] | None = None, seed: int = 0
) -> Fitted:
    """A LambdaRank booster on the trainable groups, over the given feature columns and model size
    (default: the size chosen by `select_size` on these groups), with that size; ``seed`` draws
    LightGBM's row and column samples."""
    import lightgbm

    train = [g for g in groups if g.trainable and len(g.ids) > 1]
    if not train:
        raise ValueError("no training question has a gold provision among its candidates")
    size = size if size is not None else select_size(train, columns, seed=seed)
    x = np.vstack([g.rows[:, columns] for g in train])
    y = np.concatenate([g.labels for g in train])
    params = {
        **LGBM_PARAMS,
        **size,
        "random_state": seed,
        "monotone_constraints": monotone_constraints([FEATURES[i] for i in columns]),
    }
    model = lightgbm.LGBMRanker(**params)
    model.fit(x, y, group=[len(g.ids) for g in train])
    return Fitted(model.booster_, size)


def select_size(
    groups: Sequence[Group], columns: Sequence[int], folds: int = 3, seed: int = 0
) -> dict[str, Any]:
    """The model size of `PARAM_GRID` with the best mean nDCG@10 in an inner cross-validation over
    ``groups`` alone (the outer fold's test questions are never seen here)."""
    if len(groups) < 2 * folds:
        return PARAM_GRID[0]

    def inner_ndcg(size: dict[str, Any]) -> float:
        ranked_by_q: dict[str, list[str]] = {}
        for k in range(folds):
            test = [g for g in groups if fold_of(g.question.id, folds, salt="inner") == k]
            train = [g for g in groups if fold_of(g.question.id, folds, salt="inner") != k]
            if not test or not any(g.trainable for g in train):
                continue
            booster = fit(train, columns, size, seed)
            for g in test:
                ranked_by_q[g.question.id] = ranked(booster, g, columns)[0][:TOP_N]
        per_q = ranking_metrics(
            ranked_by_q, {g.question.id: g.gold for g in groups if g.question.id in ranked_by_q}, [10]
        )
        return float(np.mean([m["ndcg@10"] for m in per_q.values()])) if per_q else 0.0

    return max(PARAM_GRID, key=inner_ndcg)


def ranked(booster: Any, g: Group, columns: Sequence[int]) -> tuple[list[str], np.ndarray]:
    """Candidate ids best first, with their scores."""
    scores = booster.predict(g.rows[:, columns], num_threads=1) if len(g.ids) else np.zeros(0)
    order = np.argsort(-scores, kind="stable")
    return [g.ids[i] for i in order], scores[order]


def choose_delta(booster: Any, groups: Sequence[Group], columns: Sequence[int], cite_max: int) -> float:
    """The cited-set cut (score distance from the top) with the best mean F1 on ``groups``."""
    scored = [(ranked(booster, g, columns), set(g.gold)) for g in groups]

    def mean_f1(delta: float) -> float:
        f1s = []
        for (ids, scores), gold in scored:
            n = cut_cited(scores, delta, cite_max)
            f1s.append(set_prf(ids[:n], list(gold)).f1)
        return float(np.mean(f1s)) if f1s else 0.0

    return max(DELTAS, key=lambda d: (mean_f1(d), -d))


@dataclass
class FoldRun:
    """Per-question rankings and cited sets of one system over all folds."""

    ranked: dict[str, list[str]]
    cited: dict[str, list[str]]


def cross_validate(
    groups: Sequence[Group],
    folds: int,
    cite_max: int,
    drop: set[str] = frozenset(),
    progress: Callable[[str], None] | None = None,
    fitter: Callable[..., Any] = fit,
    seed: int = 0,
    splits: Sequence[Split] | None = None,
) -> FoldRun:
    """Rankings of every tested question by a model trained on the rest of its split (optionally without
    feature groups): ``folds`` k-fold splits by question id, or the given ``splits`` (e.g.
    leave-one-set-out, `bifrost.eval.splits`); ``seed`` is LightGBM's (see `fit`)."""
    columns = columns_without(set(drop))
    run = FoldRun({}, {})
    for split in splits if splits is not None else k_fold([g.question.id for g in groups], folds):
        test, train = [groups[i] for i in split.test], [groups[i] for i in split.train]
        booster = fitter(train, columns, seed=seed)
        delta = choose_delta(booster, train, columns, cite_max)
        for g in test:
            ids, scores = ranked(booster, g, columns)
            run.ranked[g.question.id] = ids[:TOP_N]
            run.cited[g.question.id] = ids[: cut_cited(scores, delta, cite_max)]
        if progress:
            progress(split.name + (f" without {'+'.join(sorted(drop))}" if drop else ""))
    return run


def score_run(
    groups: Sequence[Group],
    ranked_by_q: dict[str, list[str]],
    cited_by_q: dict[str, list[str]] | None,
    related: Related,
    seed: int = 0,
) -> dict[str, Any]:
    """Mean and 95% bootstrap CI of R@10, MAP@10, nDCG@10, hit@1, hit@5, the first in a gold provision's
    section, Both@10 (where src/tgt exist) and cited-set F1."""
    qrels = {g.question.id: g.gold for g in groups}
    per_q = ranking_metrics(ranked_by_q, qrels, [1, 5, 10])
    columns: dict[str, list[float]] = {
        "recall@10": [],
        "map@10": [],
        "ndcg@10": [],
        "hit@1": [],
        "hit@5": [],
        "lead_section": [],
    }
    both: list[float] = []
    f1: list[float] = []
    f1_h: list[float] = []
    for g in groups:
        m = per_q[g.question.id]
        for name in ("recall@10", "map@10", "ndcg@10", "hit@1", "hit@5"):
            columns[name].append(m[name])
        columns["lead_section"].append(g.lead_in_gold_section(ranked_by_q.get(g.question.id, [])))
        src, tgt = g.question.extra.get("src"), g.question.extra.get("tgt")
        if src and tgt:
            both.append(both_at(ranked_by_q.get(g.question.id, []), src, tgt, 10))
        if cited_by_q is not None:
            cited = cited_by_q.get(g.question.id, [])
            f1.append(set_prf(cited, g.gold).f1)
            f1_h.append(hierarchy_prf(cited, g.gold, related).f1)
    if both:
        columns["both@10"] = both
    if cited_by_q is not None:
        columns["f1"], columns["f1_h"] = f1, f1_h
    out: dict[str, Any] = {}
    for name, values in columns.items():
        ci = bootstrap_ci(values, seed=seed)
        out[name] = {"mean": ci.mean, "low": ci.low, "high": ci.high, "n": len(values)}
    out["_per_question"] = {name: values for name, values in columns.items()}
    return out


ABLATIONS: tuple[str, ...] = tuple(g for g in FEATURE_GROUPS if g != "shape")
