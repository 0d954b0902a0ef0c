"""The terminal table of `bifrost train answerability`: the three outcomes per question set left out
and per held-out set, the most answerable questions lost first."""

from __future__ import annotations

from typing import Any

from rich.table import Table


def _share(f: dict[str, Any], group: str, outcome: str) -> str:
    c = (f.get(group) or {}).get(outcome)
    return f"{c['mean']:.3f}" if c else "–"


def outcome_table(report: Any) -> Table:
    """Answerable refused / refused or not stated, unanswerable refused / refused or not stated, AUROC."""
    rows = [(k, "left out", v) for k, v in report.left_out.items()] + [
        (k, "held out", v) for k, v in report.held_out.items()
    ]
    rows.sort(
        key=lambda r: -((r[2].get("answerable") or {}).get("refused_or_not_stated") or {}).get("mean", 0.0)
    )
    table = Table(
        title="Refusal by question set (left out: fit on the other sets; held out: never trained on)"
    )
    for col in (
        "set",
        "n",
        "ans. refused",
        "ans. refused or not stated",
        "unans. refused",
        "unans. refused or not stated",
        "AUROC",
    ):
        table.add_column(col, justify="left" if col == "set" else "right", no_wrap=col == "set")
    for name, kind, f in rows:
        table.add_row(
            f"{name} ({kind})",
            str(f["n"]),
            _share(f, "answerable", "refused"),
            _share(f, "answerable", "refused_or_not_stated"),
            _share(f, "unanswerable", "refused"),
            _share(f, "unanswerable", "refused_or_not_stated"),
            f"{f['auroc']['mean']:.3f}" if "auroc" in f else "–",
        )
    return table
