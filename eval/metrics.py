"""Pure metric functions: cited-set P/R/F1 (exact, hierarchy, section), ranking metrics, answerability.

Set metrics follow the BifrostRAG paper (eq. 4-6). Ranking metrics are trec_eval's, through
`pytrec_eval` (the reference implementation; no second copy here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

Related = Callable[[str, str], bool]


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 of one cited set against one gold set."""

    precision: float
    recall: float
    f1: float


def f1_of(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def set_prf(cited: Sequence[str], gold: Sequence[str]) -> PRF:
    """Exact match: P = |C∩G|/|C|, R = |C∩G|/|G| (0 for an empty side; gold must be non-empty)."""
    c, g = set(cited), set(gold)
    if not g:
        raise ValueError("set_prf needs a non-empty gold set; score unanswerable questions by refusal")
    hit = len(c & g)
    p = hit / len(c) if c else 0.0
    r = hit / len(g)
    return PRF(p, r, f1_of(p, r))


def hierarchy_prf(cited: Sequence[str], gold: Sequence[str], related: Related) -> PRF:
    """Hierarchy credit: a cited id that equals, or is an ancestor/descendant of, a gold id counts.

    P = cited ids matching some gold id / |C|; R = gold ids matched by some cited id / |G|.
    """
    c, g = set(cited), set(gold)
    if not g:
        raise ValueError("hierarchy_prf needs a non-empty gold set")

    def match(x: str, y: str) -> bool:
        return x == y or related(x, y)

    good_c = sum(1 for x in c if any(match(x, y) for y in g))
    good_g = sum(1 for y in g if any(match(x, y) for x in c))
    p = good_c / len(c) if c else 0.0
    r = good_g / len(g)
    return PRF(p, r, f1_of(p, r))


def section_prf(cited: Sequence[str], gold: Sequence[str], section_of: Callable[[str], str]) -> PRF:
    """Exact P/R/F1 after mapping both sets to their sections (1926.451(b)(2) -> 1926.451)."""
    return set_prf([section_of(x) for x in cited], [section_of(x) for x in gold])


def lead_in_gold_section(
    listed: Sequence[str], gold: Sequence[str], section_of: Callable[[str], str]
) -> bool:
    """Whether the first of ``listed`` lies in the section of a gold provision (what a reader opens first)."""
    return bool(listed) and section_of(listed[0]) in {section_of(g) for g in gold}


def dedupe(ranked: Sequence[str]) -> list[str]:
    """Ranked ids with repeats removed (first occurrence kept)."""
    return list(dict.fromkeys(ranked))


def ranking_metrics(
    runs: dict[str, Sequence[str]], qrels: dict[str, Sequence[str]], k_values: Sequence[int]
) -> dict[str, dict[str, float]]:
    """Ranking metrics per question with non-empty gold, through trec_eval (pytrec_eval); ranks become
    scores to keep order; repeated ids count once."""
    from bifrost.core.extras import require_extra

    require_extra("eval", "pytrec_eval")
    import pytrec_eval

    qrel = {q: {d: 1 for d in g} for q, g in qrels.items() if g}
    run = {}
    for q in qrel:
        ids = dedupe(runs.get(q, []))
        run[q] = {d: float(len(ids) - i) for i, d in enumerate(ids)} or {"__none__": 0.0}
    ks = ",".join(str(k) for k in sorted(set(k_values)))
    ev = pytrec_eval.RelevanceEvaluator(
        qrel, {f"recall.{ks}", f"success.{ks}", "map_cut.10", "ndcg_cut.10", "recip_rank"}
    )
    res = ev.evaluate(run)
    out = {}
    for q, m in res.items():
        row = {f"recall@{k}": m[f"recall_{k}"] for k in k_values}
        row |= {f"hit@{k}": m[f"success_{k}"] for k in k_values}
        row |= {"map@10": m["map_cut_10"], "ndcg@10": m["ndcg_cut_10"], "mrr": m["recip_rank"]}
        out[q] = row
    return out


def both_at(ranked: Sequence[str], src: Sequence[str], tgt: Sequence[str], k: int) -> float:
    """Both@k of a cross-reference question: 1 when a source passage and a cited passage are both in the
    top k."""
    top = set(dedupe(ranked)[:k])
    return float(bool(top & set(src)) and bool(top & set(tgt)))


def answerability_auroc(answerable: Sequence[bool], top_scores: Sequence[float]) -> float:
    """AUROC of the top retrieval score as a detector of answerable questions (nan with one class);
    `bifrost.eval.stats.auroc`, the one implementation (tested against sklearn's)."""
    from bifrost.eval.stats import auroc  # numpy and scipy, imported when used

    return auroc(answerable, top_scores)


def refusal_rates(answerable: Sequence[bool], refused: Sequence[bool]) -> dict[str, float]:
    """Refusal rate on unanswerable questions (want 1) and false refusals on answerable ones (want 0)."""
    un = [r for a, r in zip(answerable, refused) if not a]
    an = [r for a, r in zip(answerable, refused) if a]
    return {
        "refusal_rate_unanswerable": sum(un) / len(un) if un else float("nan"),
        "false_refusal_rate": sum(an) / len(an) if an else float("nan"),
    }
