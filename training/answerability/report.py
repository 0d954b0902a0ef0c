"""The report of `bifrost train answerability`: the three outcomes of each set left out and of each
held-out set (worst first), the k-fold tables, and every question's out-of-fold score."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.retrieval.answerability.features import FEATURES

Report = Any  # `bifrost.training.answerability.run.Report` (that module calls this one)


def _cell(f: dict[str, Any], name: str) -> str:
    c = f.get(name)
    return f"{c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]" if c else "–"


def _share(f: dict[str, Any], group: str, outcome: str) -> str:
    c = (f.get(group) or {}).get(outcome)
    return f"{c['mean']:.3f}" if c else "–"


def set_rows(report: Report) -> list[tuple[str, str, dict[str, Any]]]:
    """(set, "left out" or "held out", figures), the most answerable questions lost first."""
    rows = [(k, "left out", v) for k, v in report.left_out.items()] + [
        (k, "held out", v) for k, v in report.held_out.items()
    ]
    return sorted(
        rows,
        key=lambda r: -((r[2].get("answerable") or {}).get("refused_or_not_stated") or {}).get("mean", 0.0),
    )


def set_markdown(report: Report) -> str:
    """The three outcomes per set left out (fit on the other sets) and per held-out set ("" when none)."""
    rows = set_rows(report)
    if not rows:
        return ""
    lines = [
        f"## {report.corpus}: refusal with each question set left out",
        "",
        f"Thresholds chosen on out-of-set scores of the fitted sets: at most {report.target:.0%} of "
        "answerable "
        f'questions refused (every set), at most {report.open_target:.0%} refused or "not stated" (pooled).',
        "",
        "| set | | n | answerable: refused | answerable: refused or not stated | unanswerable: refused | "
        "unanswerable: refused or not stated | AUROC |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, kind, f in rows:
        auroc = f"{f['auroc']['mean']:.3f}" if "auroc" in f else "–"
        lines.append(
            f"| {name} | {kind} | {f['n']} | {_share(f, 'answerable', 'refused')} | "
            f"{_share(f, 'answerable', 'refused_or_not_stated')} | {_share(f, 'unanswerable', 'refused')} | "
            f"{_share(f, 'unanswerable', 'refused_or_not_stated')} | {auroc} |"
        )
    curves = [(name, kind, f["curve"]) for name, kind, f in rows if "curve" in f]
    if curves:
        lines += [
            "",
            "Unanswerable questions caught (refused or not stated) against answerable questions lost:",
            "",
            "| set | " + " | ".join(f"{p['answerable_lost']:.0%} lost" for p in curves[0][2]) + " |",
            "|---|" + "---|" * len(curves[0][2]),
        ]
        for name, kind, points in curves:
            lines.append(
                f"| {name} ({kind}) | " + " | ".join(f"{p['unanswerable_caught']:.2f}" for p in points) + " |"
            )
    return "\n".join(lines) + "\n\n"


def markdown(report: Report) -> str:
    """The tables: each set left out and held out, then k-fold systems, per question file and per reason."""
    m = report.model
    lines = [
        set_markdown(report)
        + f"## {report.corpus}: answerability, {m['n']} questions ({m['answerable']} answerable), "
        f"{report.folds}-fold CV",
        "",
        f"Threshold chosen in each training fold for at most {report.target:.0%} false refusals "
        f"(folds: {', '.join(f'{t:.3f}' for t in report.fold_thresholds)}; stored model: refuse below "
        f"{report.threshold:.3f}, not stated below {report.answer_threshold:.3f}); "
        f"retriever: {report.retriever}.",
        "",
        "| system | AUROC | refusal (unanswerable) | false refusal (answerable) |",
        "|---|---|---|---|",
    ]
    rows = {
        "answerability model": m,
        **report.ablations,
        f"cosine rule ({report.cosine['rule']})": report.cosine,
    }
    lines += [
        f"| {name} | {_cell(f, 'auroc')} | {_cell(f, 'refusal_unanswerable')} | {_cell(f, 'false_refusal')} |"
        for name, f in rows.items()
    ]
    for title, key in (("question file", "by_source"), ("reason (unanswerable)", "by_reason")):
        lines += [
            "",
            f"| {title} | n | model: refusal | model: false refusal | cosine: refusal | cosine: false "
            "refusal |",
            "|---|---|---|---|---|---|",
        ]
        for name, f in m[key].items():
            c = report.cosine[key][name]
            lines.append(
                f"| {name} | {f['n']} | {_cell(f, 'refusal_unanswerable')} | {_cell(f, 'false_refusal')} | "
                f"{_cell(c, 'refusal_unanswerable')} | {_cell(c, 'false_refusal')} |"
            )
    lines += [
        "",
        "Coefficients of the stored model (standardized features): "
        + ", ".join(f"{k} {v:+.2f}" for k, v in report.coefficients.items()),
    ]
    return "\n".join(lines) + "\n"


def write_report(report: Report, examples: Sequence[Any], run: Any, out_dir: Path) -> None:
    """cv.json, cv.md and per_question.jsonl (the out-of-fold score and refusal of every question)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cv.json").write_text(json.dumps(report.as_dict(), indent=2))
    (out_dir / "cv.md").write_text(markdown(report))
    with (out_dir / "per_question.jsonl").open("w") as f:
        for e, s, r in zip(examples, run.scores, run.refused):
            f.write(
                json.dumps(
                    {
                        "id": e.question.id,
                        "source": e.source,
                        "answerable": e.answerable,
                        "reason": e.reason,
                        "score": round(float(s), 4),
                        "refused": bool(r),
                        "relevance": round(e.relevance, 4),
                        "features": dict(zip(FEATURES, np.round(e.row, 4).tolist())),
                    }
                )
                + "\n"
            )
