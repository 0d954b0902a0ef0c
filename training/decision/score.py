"""Scoring a decision on a set left out: the governing rule against the gold and decisive labels and the
selector's calibration, the answer's citations beside the answer without the decision, and its verdicts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bifrost.core.answer_types import Answer, Outcome
from bifrost.eval.metrics import lead_in_gold_section, set_prf
from bifrost.retrieval.answer.decision import governing_order
from bifrost.retrieval.answer.decision_model import DecisionModel
from bifrost.training.decision.cases import Case

BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)
"""The reliability curve's bins of the governing rule's probability."""


@dataclass(frozen=True)
class Scored:
    """One question of a set left out."""

    id: str
    governing: str
    probability: float
    hit_gold: bool
    hit_decisive: bool | None  # None: no decisive label
    ranker_top_gold: bool
    cited_new: tuple[str, ...]
    cited_old: tuple[str, ...]
    gold: tuple[str, ...]
    answered: bool
    label: str | None
    verdict_new: str | None
    verdict_old: str | None
    outcome: str = ""
    lead_section_gold: bool = False  # the first of citations, else of the shortlist, is in a gold section
    gold_in_five: bool = False  # a gold paragraph, its parent or a child among the first five of those
    stated_gold: bool | None = None  # a rule stated as the one that decides (None: none stated) is gold


def cited(answer: Answer) -> tuple[str, ...]:
    if answer.refused or answer.outcome not in (Outcome.ANSWERED, Outcome.SHORTLIST):
        return ()
    return tuple(dict.fromkeys(c for st in answer.statements for c in st.citations))


def shown(answer: Answer) -> list[str]:
    """What the answer shows first: its citations, else its shortlist, in order."""
    if answer.refused:
        return []
    return list(dict.fromkeys([*(c.id for c in answer.citations), *(s.id for s in answer.shortlist)]))


def near(pid: str, gold: set[str], parent: dict[str, str | None]) -> bool:
    """A gold paragraph, or its parent or one of its children."""
    return pid in gold or parent.get(pid) in gold or any(parent.get(g) == pid for g in gold)


def score_case(case: Case, p: np.ndarray, new: Answer, old: Answer, model: DecisionModel) -> Scored:
    gold = set(case.question.gold)
    nav = case.inputs.nav
    listed = shown(new)
    stated = not new.refused and new.outcome is Outcome.ANSWERED and bool(new.governing)
    at = governing_order(p, case.rows, model.card.order)[0] if len(case.ids) else 0
    gov = case.ids[at] if len(case.ids) else ""
    sure = model.governing_probability(float(model.margins(case.rows)[at])) if len(case.ids) else 0.0
    top = case.result.items[0].id if case.result.items else ""
    decisive = case.decisive
    return Scored(
        id=case.question.id,
        governing=gov,
        probability=sure,
        hit_gold=gov in gold,
        hit_decisive=(gov in decisive) if decisive else None,
        ranker_top_gold=top in gold,
        cited_new=cited(new),
        cited_old=cited(old),
        gold=tuple(case.question.gold),
        answered=not new.refused and new.outcome is Outcome.ANSWERED,
        label=case.verdict,
        outcome=new.outcome.value,
        lead_section_gold=lead_in_gold_section(listed, list(gold), lambda pid: nav.section.get(pid, pid)),
        gold_in_five=any(near(pid, gold, nav.parent) for pid in listed[:5]),
        stated_gold=(new.governing[0].id in gold) if stated else None,
        verdict_new=new.verdict.value if new.verdict else None,
        verdict_old=old.verdict.value if old.verdict else None,
    )


def _prf(rows: Sequence[tuple[tuple[str, ...], tuple[str, ...]]]) -> dict[str, float]:
    m = [set_prf(list(c), list(g)) for c, g in rows]
    return {
        "precision": float(np.mean([x.precision for x in m])) if m else 0.0,
        "recall": float(np.mean([x.recall for x in m])) if m else 0.0,
        "f1": float(np.mean([x.f1 for x in m])) if m else 0.0,
        "cites": float(np.mean([len(c) for c, _ in rows])) if rows else 0.0,
    }


def _verdicts(rows: Sequence[Scored], attr: str) -> dict[str, object]:
    labelled = [r for r in rows if r.label]
    given = [r for r in labelled if getattr(r, attr)]
    right = [r for r in given if getattr(r, attr) == r.label]
    flat_wrong = [r for r in given if getattr(r, attr) in ("yes", "no") and getattr(r, attr) != r.label]
    return {
        "labelled": len(labelled),
        "given": len(given),
        "right": len(right),
        "wrong": len(given) - len(right),
        "flat_wrong": len(flat_wrong),
        "by_kind": {k: sum(1 for r in given if getattr(r, attr) == k) for k in ("yes", "no", "depends")},
        "wrong_ids": [
            f"{r.id}: said {getattr(r, attr)}, label {r.label}" for r in given if getattr(r, attr) != r.label
        ],
    }


def reliability(rows: Sequence[Scored]) -> list[dict[str, float]]:
    """Per probability bin: how many governing rules, their mean probability, and the share that are gold."""
    out = []
    for lo, hi in zip(BINS, BINS[1:]):
        inside = [r for r in rows if lo <= r.probability < hi]
        if inside:
            out.append(
                {
                    "from": lo,
                    "to": min(hi, 1.0),
                    "n": len(inside),
                    "mean_probability": float(np.mean([r.probability for r in inside])),
                    "gold_share": float(np.mean([r.hit_gold for r in inside])),
                }
            )
    return out


def summarize(rows: Sequence[Scored]) -> dict[str, object]:
    decisive = [r for r in rows if r.hit_decisive is not None]
    sure = [r for r in rows if r.probability >= 0.9]
    stated = [r for r in rows if r.stated_gold is not None]
    return {
        "questions": len(rows),
        "governing_gold": float(np.mean([r.hit_gold for r in rows])) if rows else 0.0,
        "ranker_top_gold": float(np.mean([r.ranker_top_gold for r in rows])) if rows else 0.0,
        "governing_decisive": float(np.mean([r.hit_decisive for r in decisive])) if decisive else None,
        "decisive_labelled": len(decisive),
        "sure": {"n": len(sure), "gold_share": float(np.mean([r.hit_gold for r in sure])) if sure else None},
        "reliability": reliability(rows),
        "answered": float(np.mean([r.answered for r in rows])) if rows else 0.0,
        "stated": float(np.mean([r.stated_gold is not None for r in rows])) if rows else 0.0,
        "stated_gold": float(np.mean([r.stated_gold for r in stated])) if stated else None,
        "shortlisted": float(np.mean([r.outcome == "shortlist" for r in rows])) if rows else 0.0,
        "refused": float(np.mean([r.outcome == "refused" for r in rows])) if rows else 0.0,
        "lead_section_gold": float(np.mean([r.lead_section_gold for r in rows])) if rows else 0.0,
        "gold_in_five": float(np.mean([r.gold_in_five for r in rows])) if rows else 0.0,
        "citations": {
            "decision": _prf([(r.cited_new, r.gold) for r in rows]),
            "before": _prf([(r.cited_old, r.gold) for r in rows]),
        },
        "verdicts": {"decision": _verdicts(rows, "verdict_new"), "before": _verdicts(rows, "verdict_old")},
    }
