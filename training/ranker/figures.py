"""Validated figures of the ranker beside the baselines: k-fold, each set left out, and held-out sets."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from bifrost.eval.splits import Split, leave_one_set_out
from bifrost.eval.stats import wilcoxon_p
from bifrost.retrieval.ranking.ltr.features import columns_without
from bifrost.retrieval.ranking.ltr.retriever import cut_cited
from bifrost.training.ranker.cv import ABLATIONS, TOP_N, choose_delta, cross_validate, fit, ranked, score_run
from bifrost.training.ranker.dataset import Group, describe_pool
from bifrost.training.ranker.report import TrainReport, seed_stats

Say = Callable[[str], None]


def baseline_figures(groups: Sequence[Group], related) -> dict[str, dict[str, Any]]:
    """Scores of the baselines recorded with the groups (bm25, dense, rrf, the hybrid)."""
    return {
        name: score_run(groups, {g.question.id: g.baselines[name] for g in groups}, None, related)
        for name in (groups[0].baselines if groups else ())
    }


def cross_validated(
    groups: Sequence[Group],
    corpus: str,
    folds: int,
    cite_max: int,
    related,
    ablations: bool,
    say: Say,
    seeds: Sequence[int] = (0,),
    without: dict[str, list[Group]] | None = None,
    loso_without: Sequence[str] = (),
) -> TrainReport:
    """Scores of the baselines and of the ranker (and its ablations) on the same questions, k-fold; and,
    when the groups come from several sets, with each set left out in turn (fit on the others; ``without``:
    per set, the groups to use when it is left out, collected with its answers out of the precedent bank);
    ``loso_without``: feature groups whose worth is also measured so, each set left out and every seed."""
    t0 = time.perf_counter()
    systems = baseline_figures(groups, related)
    runs = [cross_validate(groups, folds, cite_max, progress=say, seed=s) for s in seeds]
    systems["bifrost-ltr"] = score_run(groups, runs[0].ranked, runs[0].cited, related)
    report = TrainReport(corpus, folds, describe_pool(groups), systems, seed=seeds[0], seeds=list(seeds))
    report.seed_means["k-fold"] = seed_stats(
        [score_run(groups, r.ranked, r.cited, related)["recall@10"]["mean"] for r in runs]
    )
    ltr = systems["bifrost-ltr"]["_per_question"]["recall@10"]
    for name in systems:
        if name != "bifrost-ltr":
            report.significance[f"bifrost-ltr vs {name} (R@10, Wilcoxon p)"] = wilcoxon_p(
                ltr, systems[name]["_per_question"]["recall@10"]
            )
    splits = leave_one_set_out([g.source for g in groups])
    if splits:
        report.left_out, means = left_out_figures(
            groups, splits, cite_max, related, seeds, say, without or {}
        )
        report.seed_means.update(means)
        for group in loso_without:
            _, dropped = left_out_figures(
                groups, splits, cite_max, related, seeds, say, without or {}, drop=frozenset({group})
            )
            report.left_out_ablations[f"without {group}"] = dropped
    if ablations:
        for group in ABLATIONS:
            drop = cross_validate(groups, folds, cite_max, drop={group}, progress=say, seed=seeds[0])
            report.ablations[f"without {group}"] = score_run(groups, drop.ranked, drop.cited, related)
    report.seconds["cv"] = time.perf_counter() - t0
    return report


def left_out_figures(
    groups: Sequence[Group],
    splits: Sequence[Split],
    cite_max: int,
    related,
    seeds: Sequence[int],
    say: Say,
    without: dict[str, list[Group]] | None = None,
    drop: frozenset[str] = frozenset(),
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, float]]]:
    """Per set left out: the baselines and the ranker fitted on the other sets (first seed), and the
    ranker's R@10 over every seed; a set in ``without`` is fitted and scored on its own groups (the same
    questions, in the same order, collected with its answers out of the precedent bank); ``drop``: feature
    groups the ranker goes without."""
    figures: dict[str, dict[str, Any]] = {}
    means: dict[str, dict[str, float]] = {}
    for split in splits:
        pool = (without or {}).get(split.name, groups)
        runs = [
            cross_validate(pool, 0, cite_max, progress=say, seed=s, splits=[split], drop=drop) for s in seeds
        ]
        test = [pool[i] for i in split.test]
        figures[split.name] = {
            **baseline_figures(test, related),
            "bifrost-ltr": score_run(test, runs[0].ranked, runs[0].cited, related),
        }
        means[split.name] = seed_means(test, [(r.ranked, r.cited) for r in runs], related)
    return figures, means


def seed_means(
    test: Sequence[Group], runs: Sequence[tuple[dict[str, list[str]], dict[str, list[str]]]], related
) -> dict[str, Any]:
    """The ranker's R@10 over seeds (mean, min, max, n) and, under ``by_metric``, the same of the first
    ranked in a gold section, hit@1, hit@5 and nDCG@10."""
    scored = [score_run(test, ranked_by_q, cited, related) for ranked_by_q, cited in runs]
    return {
        **seed_stats([s["recall@10"]["mean"] for s in scored]),
        "by_metric": {
            m: seed_stats([s[m]["mean"] for s in scored])
            for m in ("lead_section", "hit@1", "hit@5", "ndcg@10")
        },
    }


def held_out_figures(
    groups: Sequence[Group],
    held: Sequence[Group],
    cite_max: int,
    related,
    seeds: Sequence[int],
    say: Say,
    drop: frozenset[str] = frozenset(),
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, float]]]:
    """Per held-out set: the baselines and the ranker fitted on every training question (first seed), and
    the ranker's R@10 over every seed; ``drop``: feature groups the ranker goes without."""
    columns = columns_without(set(drop))
    ranked_by_seed: list[tuple[dict[str, list[str]], dict[str, list[str]]]] = []
    for s in seeds:
        booster = fit(groups, columns, seed=s)
        delta = choose_delta(booster, groups, columns, cite_max)
        by_q = {g.question.id: ranked(booster, g, columns) for g in held}
        ranked_by_seed.append(
            (
                {q: ids[:TOP_N] for q, (ids, _) in by_q.items()},
                {q: ids[: cut_cited(sc, delta, cite_max)] for q, (ids, sc) in by_q.items()},
            )
        )
        say(f"held-out sets scored (seed {s})")
    figures: dict[str, dict[str, Any]] = {}
    means: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(g.source for g in held):
        test = [g for g in held if g.source == name]
        figures[name] = {
            **baseline_figures(test, related),
            "bifrost-ltr": score_run(test, *ranked_by_seed[0], related),
        }
        means[name] = seed_means(test, ranked_by_seed, related)
    return figures, means


def add_held_out(
    report: TrainReport,
    groups: Sequence[Group],
    held: Sequence[Group],
    cite_max: int,
    related,
    seeds: Sequence[int],
    say: Say,
    without: Sequence[str] = (),
) -> None:
    """The held-out sets' figures into ``report``, and for each feature group in ``without`` the same with the
    ranker fitted without it (beside the sets left out in `TrainReport.left_out_ablations`)."""
    report.held_out, means = held_out_figures(groups, held, cite_max, related, seeds, say)
    report.seed_means.update(means)
    for group in without:
        _, dropped = held_out_figures(groups, held, cite_max, related, seeds, say, frozenset({group}))
        report.left_out_ablations.setdefault(f"without {group}", {}).update(dropped)
