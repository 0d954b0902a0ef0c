"""The decision's validated figures as a report: per set left out, means over seeds of the governing rule's
hit rates, the calibration at 0.9, the answer's citations beside the answer before it, and the verdicts;
written as summary.json (every seed, every bin) and summary.md (the table)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.training.decision.run import DecisionReport


def _mean(runs: list[dict[str, Any]], *path: str) -> float | None:
    values = []
    for run in runs:
        v: Any = run
        for key in path:
            v = v.get(key) if isinstance(v, dict) else None
        if v is not None:
            values.append(float(v))
    return float(np.mean(values)) if values else None


def seed_means(report: DecisionReport) -> dict[str, dict[str, float | None]]:
    """Per set left out, the headline figures averaged over seeds."""
    out = {}
    for name, f in report.left_out.items():
        runs = f["seeds"]
        out[name] = {
            "questions": _mean(runs, "questions"),
            "governing_gold": _mean(runs, "governing_gold"),
            "ranker_top_gold": _mean(runs, "ranker_top_gold"),
            "governing_decisive": _mean(runs, "governing_decisive"),
            "sure_n": _mean(runs, "sure", "n"),
            "sure_gold_share": _mean(runs, "sure", "gold_share"),
            "precision": _mean(runs, "citations", "decision", "precision"),
            "f1": _mean(runs, "citations", "decision", "f1"),
            "cites": _mean(runs, "citations", "decision", "cites"),
            "precision_before": _mean(runs, "citations", "before", "precision"),
            "f1_before": _mean(runs, "citations", "before", "f1"),
            "cites_before": _mean(runs, "citations", "before", "cites"),
            "verdicts_labelled": _mean(runs, "verdicts", "decision", "labelled"),
            "verdicts_given": _mean(runs, "verdicts", "decision", "given"),
            "verdicts_right": _mean(runs, "verdicts", "decision", "right"),
            "verdicts_flat_wrong": _mean(runs, "verdicts", "decision", "flat_wrong"),
            "verdicts_given_before": _mean(runs, "verdicts", "before", "given"),
            "verdicts_right_before": _mean(runs, "verdicts", "before", "right"),
            "stated": _mean(runs, "stated"),
            "stated_gold": _mean(runs, "stated_gold"),
            "lead_section_gold": _mean(runs, "lead_section_gold"),
            "gold_in_five": _mean(runs, "gold_in_five"),
        }
    return out


def _fmt(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


HEADER = (
    "| set left out | questions | governing is gold (ranker's top) | is decisive | >= 0.9: n, gold share "
    "| citations P / F1 / cites | before: P / F1 / cites "
    "| verdicts given / right / wrong yes-no of labelled "
    "| rule stated: share, gold | lead in a gold section | gold (or parent, child) in the first five |"
)


def markdown(report: DecisionReport) -> str:
    rows = [HEADER, "|" + "---|" * 11]
    for name, m in seed_means(report).items():
        cells = [
            name,
            _fmt(m["questions"], 0),
            f"{_fmt(m['governing_gold'])} ({_fmt(m['ranker_top_gold'])})",
            _fmt(m["governing_decisive"]),
            f"{_fmt(m['sure_n'], 1)}, {_fmt(m['sure_gold_share'])}",
            f"{_fmt(m['precision'])} / {_fmt(m['f1'])} / {_fmt(m['cites'], 2)}",
            f"{_fmt(m['precision_before'])} / {_fmt(m['f1_before'])} / {_fmt(m['cites_before'], 2)}",
            f"{_fmt(m['verdicts_given'], 1)} / {_fmt(m['verdicts_right'], 1)} / "
            f"{_fmt(m['verdicts_flat_wrong'], 1)} of {_fmt(m['verdicts_labelled'], 0)}",
            f"{_fmt(m['stated'])}, {_fmt(m['stated_gold'])}",
            _fmt(m["lead_section_gold"]),
            _fmt(m["gold_in_five"]),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def write_report(report: DecisionReport, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "summary.json").write_text(
        json.dumps({**asdict(report), "seed_means": seed_means(report)}, indent=2, default=str)
    )
    (out_dir / "summary.md").write_text(markdown(report))
