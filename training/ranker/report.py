"""The ranker's training report: validated figures per system, set left out and seed, as JSON and Markdown."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Say = Callable[[str], None]


@dataclass
class TrainReport:
    """Cross-validated figures of every system, the pool's ceiling, and where the model went."""

    corpus: str
    folds: int
    pool: dict[str, Any]
    systems: dict[str, dict[str, Any]]
    ablations: dict[str, dict[str, Any]] = field(default_factory=dict)
    significance: dict[str, float] = field(default_factory=dict)
    model_path: str = ""  # "" when the run stored nothing (--no-store)
    cite_delta: float = 0.0
    seconds: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    # set -> system -> figures, fit on the other sets
    left_out: dict[str, dict[str, Any]] = field(default_factory=dict)
    # set -> system -> figures, fit on every set
    held_out: dict[str, dict[str, Any]] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=list)
    # evaluation -> {mean, min, max} of ltr R@10
    seed_means: dict[str, dict[str, float]] = field(default_factory=dict)
    # "without <group>" -> set -> {mean, min, max} of the ranker's R@10 over seeds, each set left out
    left_out_ablations: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        strip = lambda d: {k: {m: v for m, v in s.items() if m != "_per_question"} for k, s in d.items()}  # noqa: E731
        return {
            "corpus": self.corpus,
            "folds": self.folds,
            "pool": self.pool,
            "systems": strip(self.systems),
            "ablations": strip(self.ablations),
            "significance": self.significance,
            "model_path": self.model_path,
            "cite_delta": self.cite_delta,
            "seconds": self.seconds,
            "seed": self.seed,
            "left_out": {k: strip(v) for k, v in self.left_out.items()},
            "held_out": {k: strip(v) for k, v in self.held_out.items()},
            "seeds": self.seeds,
            "seed_means": self.seed_means,
            "left_out_ablations": self.left_out_ablations,
            "worst_left_out": self.worst_left_out(),
        }

    def worst_left_out(self) -> dict[str, Any] | None:
        """The left-out (or held-out) set where the ranker gains least over RRF (R@10 ratio, seed mean)."""
        ratios = {}
        for name, systems in {**self.left_out, **self.held_out}.items():
            rrf = systems.get("rrf", {}).get("recall@10", {}).get("mean")
            ltr = self.seed_means.get(name, {}).get(
                "mean", systems.get("bifrost-ltr", {}).get("recall@10", {}).get("mean")
            )
            if rrf and ltr is not None:
                ratios[name] = ltr / rrf
        if not ratios:
            return None
        name = min(ratios, key=ratios.get)
        return {"set": name, "ratio_to_rrf": round(ratios[name], 4), "held_out": name in self.held_out}


def seed_stats(values: Sequence[float]) -> dict[str, float]:
    return {
        "mean": float(sum(values) / len(values)),
        "min": float(min(values)),
        "max": float(max(values)),
        "n": len(values),
    }


def markdown(report: TrainReport) -> str:
    """The cross-validated table (systems, then ablations) with 95% bootstrap CIs."""
    names = ["recall@10", "map@10", "ndcg@10", "both@10", "f1", "f1_h"]
    shown = [n for n in names if any(n in s for s in report.systems.values())]
    lines = [
        f"## {report.corpus}: {report.pool['questions']} questions, {report.folds}-fold cross-validation"
        + (f" (LightGBM seed {report.seed})" if report.seed else ""),
        "",
        f"Candidate pool: {report.pool['mean_candidates']:.0f} per question, holding "
        f"{report.pool['gold_recall_of_pool']:.3f} of the gold (the ceiling of any ranking over it).",
        "",
        "| system | " + " | ".join(shown) + " |",
        "|---|" + "---|" * len(shown),
    ]
    for table in (report.systems, report.ablations):
        for name, s in table.items():
            cells = [
                f"{s[n]['mean']:.3f} [{s[n]['low']:.3f}, {s[n]['high']:.3f}]" if n in s else "–"
                for n in shown
            ]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", *(f"- {k}: {v:.4g}" for k, v in report.significance.items())]
    return set_markdown(report) + "\n".join(lines) + "\n"


def set_markdown(report: TrainReport) -> str:
    """R@10 per set left out and per held-out set, worst ratio to RRF first ("" when there are none)."""
    rows = {
        **{(k, "left out"): v for k, v in report.left_out.items()},
        **{(k, "held out"): v for k, v in report.held_out.items()},
    }
    if not rows:
        return ""
    systems = [
        s
        for s in ("bm25", "dense", "rrf", "bifrost-hybrid", "bifrost-ltr")
        if any(s in v for v in rows.values())
    ]

    def ltr(key: tuple[str, str]) -> float:
        seeds = report.seed_means.get(key[0])
        return seeds["mean"] if seeds else rows[key]["bifrost-ltr"]["recall@10"]["mean"]

    def ratio(key: tuple[str, str]) -> float:
        rrf = rows[key].get("rrf", {}).get("recall@10", {}).get("mean")
        return ltr(key) / rrf if rrf else float("nan")

    seeds = (
        f" (bifrost-ltr: mean of LightGBM seeds {', '.join(map(str, report.seeds))})"
        if len(report.seeds) > 1
        else ""
    )
    lines = [
        f"## {report.corpus}: R@10 with each question set left out{seeds}",
        "",
        "| set | | questions | " + " | ".join(systems) + " | ltr / rrf |",
        "|---|---|---|" + "---|" * (len(systems) + 1),
    ]
    for key in sorted(rows, key=ratio):
        cells = [
            f"{rows[key][s]['recall@10']['mean']:.3f}" if s in rows[key] else "–" for s in systems[:-1]
        ] + [f"{ltr(key):.3f}"]
        lines.append(
            f"| {key[0]} | {key[1]} | {rows[key]['bifrost-ltr']['recall@10']['n']} | "
            + " | ".join(cells)
            + f" | {ratio(key):.2f}x |"
        )
    for name, by_set in report.left_out_ablations.items():
        cells = ", ".join(f"{k} {v['mean']:.3f}" for k, v in by_set.items())
        lines.append(f"\nbifrost-ltr {name}, each set left out (R@10, seed mean): {cells}")
    return "\n".join(lines) + "\n\n"


def write_report(report: TrainReport, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cv.json").write_text(json.dumps(report.as_dict(), indent=2))
    (out_dir / "cv.md").write_text(markdown(report))
