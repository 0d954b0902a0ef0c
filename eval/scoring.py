"""Score a system's answers: per-question metrics, then means with bootstrap CIs and breakdowns."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bifrost.eval.hierarchy import Related, SectionOf
from bifrost.eval.metrics import (
    answerability_auroc,
    both_at,
    hierarchy_prf,
    ranking_metrics,
    refusal_rates,
    section_prf,
    set_prf,
)
from bifrost.eval.questions import Question
from bifrost.eval.stats import bootstrap_ci
from bifrost.retrieval.base import SystemResult

SET_METRICS = (
    "precision",
    "recall",
    "f1",
    "precision_h",
    "recall_h",
    "f1_h",
    "precision_sec",
    "recall_sec",
    "f1_sec",
)
HEADLINE = ("f1", "f1_h", "f1_sec", "recall@10", "map@10", "ndcg@10", "mrr")


@dataclass(frozen=True)
class Scored:
    """One question answered by one system: its result and every metric (nan where undefined)."""

    question: Question
    result: SystemResult
    metrics: dict[str, float]


def set_metrics(
    cited: Sequence[str], gold: Sequence[str], related: Related, section_of: SectionOf
) -> dict[str, float]:
    """Exact, hierarchy and section P/R/F1 of a cited set (nan when gold is empty)."""
    if not gold:
        return {m: math.nan for m in SET_METRICS}
    out = {}
    for suffix, prf in (
        ("", set_prf(cited, gold)),
        ("_h", hierarchy_prf(cited, gold, related)),
        ("_sec", section_prf(cited, gold, section_of)),
    ):
        out |= {f"precision{suffix}": prf.precision, f"recall{suffix}": prf.recall, f"f1{suffix}": prf.f1}
    return out


def score_system(
    questions: Sequence[Question],
    results: Sequence[SystemResult],
    k_values: Sequence[int],
    related: Related,
    section_of: SectionOf,
) -> list[Scored]:
    """Per-question metrics for one system (ranking metrics through trec_eval when installed)."""
    runs = {q.id: [pid for pid, _ in r.ranked] for q, r in zip(questions, results)}
    qrels = {q.id: list(q.gold) for q in questions if q.answerable}
    ranking = ranking_metrics(runs, qrels, k_values)
    names = [f"recall@{k}" for k in k_values] + [f"hit@{k}" for k in k_values] + ["map@10", "ndcg@10", "mrr"]
    out = []
    for q, r in zip(questions, results):
        m = set_metrics(r.cited, q.gold if q.answerable else (), related, section_of)
        m |= ranking.get(q.id, {n: math.nan for n in names})
        src, tgt = q.extra.get("src"), q.extra.get("tgt")
        if src and tgt:  # cross-reference questions: source and cited passage both retrieved
            m |= {f"both@{k}": both_at(runs[q.id], src, tgt, k) for k in k_values}
        m["top_score"] = r.ranked[0][1] if r.ranked else -math.inf
        m["refused"] = float(r.refused or not r.cited)
        if r.outcome is not None:
            m["not_stated"] = float(r.outcome == "not_stated")
        m["seconds"] = r.seconds
        out.append(Scored(q, r, m))
    return out


def summarize(scored: Sequence[Scored], seed: int = 0) -> dict[str, dict[str, float]]:
    """Mean and 95% bootstrap CI of every metric over the questions where it is defined."""
    names = list(
        dict.fromkeys(n for s in scored for n in s.metrics if n not in ("top_score", "refused", "not_stated"))
    )
    return {n: bootstrap_ci([s.metrics.get(n, math.nan) for s in scored], seed=seed).as_dict() for n in names}


def answerability(scored: Sequence[Scored]) -> dict[str, float]:
    """AUROC of the top score for answerable vs not, and refusal rates."""
    ans = [s.question.answerable for s in scored]
    top = [s.metrics["top_score"] if math.isfinite(s.metrics["top_score"]) else -1e9 for s in scored]
    out = {
        "auroc_top_score": answerability_auroc(ans, top),
        **refusal_rates(ans, [bool(s.metrics["refused"]) for s in scored]),
    }
    if any("not_stated" in s.metrics for s in scored):  # three outcomes: answered, not stated, refused
        refused = [bool(s.metrics["refused"]) and not s.metrics.get("not_stated") for s in scored]
        open_ = [bool(s.metrics.get("not_stated")) for s in scored]
        for label, keep in (("unanswerable", False), ("answerable", True)):
            rows = [(r, o) for a, r, o in zip(ans, refused, open_) if a is keep]
            n = len(rows) or math.nan
            out[f"refused_{label}"] = sum(r for r, _ in rows) / n
            out[f"not_stated_{label}"] = sum(o for _, o in rows) / n
            out[f"refused_or_not_stated_{label}"] = sum(r or o for r, o in rows) / n
    return out


def by_group(scored: Sequence[Scored], metrics: Sequence[str] = HEADLINE) -> dict[str, dict[str, float]]:
    """Mean of headline metrics per question group (subpart, or ObliQA group); a question may be in
    several."""
    groups: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        for g in s.question.groups:
            groups[g].append(s)
    out = {}
    for g in sorted(groups):
        rows = groups[g]
        out[g] = {"n": float(len(rows))}
        for m in metrics:
            vals = [s.metrics[m] for s in rows if not math.isnan(s.metrics.get(m, math.nan))]
            out[g][m] = sum(vals) / len(vals) if vals else math.nan
    return out
