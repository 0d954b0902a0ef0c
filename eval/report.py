"""report.md tables (after BifrostRAG Tables 9-13) and PNG plots (matplotlib, Agg backend)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any


def _f(v: Any, digits: int = 3) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def _ci(m: dict[str, Any] | None) -> str:
    if not m or m.get("n", 0) == 0:
        return "–"
    return f"{_f(m['mean'])} [{_f(m['low'])}, {_f(m['high'])}]"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(r) + " |" for r in rows
    ]


def render_report(doc: dict[str, Any], pngs: list[str]) -> str:
    """The run as Markdown: set metrics, ranking metrics, breakdown, answerability, significance."""
    meta, systems = doc["meta"], doc["systems"]
    q = meta["questions"]
    lines = [
        f"# Evaluation: {meta['corpus']}",
        "",
        f"- questions: `{q['path']}` ({q['format']}, {q['n_run']} of {q['n_file']}, sha256 "
        f"`{q['sha256'][:16]}…`)",
        f"- date: {meta['date']}; embedding model: {meta['embedding_model']}; chat model: "
        f"{meta['llm_model'] or 'none'}",
        f"- cited set: {meta['cited_rule_doc']}",
        "- 95% bootstrap CIs in brackets",
        "",
    ]
    lines += _cited_set(systems) + _ranking(systems, meta["k_values"]) + _by_group(systems)
    lines += _answerability(systems, meta) + _significance(doc.get("significance") or {})
    if doc.get("skipped"):
        lines += (
            ["## Skipped systems", ""] + [f"- **{n}**: {why}" for n, why in doc["skipped"].items()] + [""]
        )
    if doc.get("failed"):
        lines += ["## Failed systems (not scored)", ""]
        lines += [f"- **{n}**: {why}" for n, why in doc["failed"].items()] + [""]
    if pngs:
        lines += ["## Plots", ""] + [f"![{p}]({p})" for p in pngs] + [""]
    return "\n".join(lines)


def _cited_set(systems: dict[str, Any]) -> list[str]:
    rows = []
    for n in systems:
        m = systems[n]["metrics"]
        for label, suf in (("exact", ""), ("hierarchy", "_h"), ("section", "_sec")):
            rows.append(
                [n, label, _ci(m.get(f"precision{suf}")), _ci(m.get(f"recall{suf}")), _ci(m.get(f"f1{suf}"))]
            )
    head = ["## Cited-set precision, recall, F1 (paper eq. 4-6)", ""]
    return head + _table(["system", "match", "precision", "recall", "F1"], rows) + [""]


def _ranking(systems: dict[str, Any], ks: list[int]) -> list[str]:
    names = list(systems)
    rank_cols = [f"recall@{k}" for k in ks] + ["map@10", "ndcg@10", "mrr"] + [f"hit@{k}" for k in ks]
    if any("both@10" in systems[n]["metrics"] for n in names):  # cross-reference questions (src and tgt)
        rank_cols += [f"both@{k}" for k in ks]
    rows = [
        [n]
        + [
            _ci(systems[n]["metrics"].get(c))
            if c in ("recall@10", "map@10", "ndcg@10", "both@10")
            else _f((systems[n]["metrics"].get(c) or {}).get("mean"))
            for c in rank_cols
        ]
        for n in names
    ]
    return ["## Ranking", ""] + _table(["system"] + rank_cols, rows) + [""]


def _by_group(systems: dict[str, Any]) -> list[str]:
    names = list(systems)
    groups = sorted({g for n in names for g in systems[n]["by_group"]})
    if not groups:
        return []
    rows = []
    for g in groups:
        for n in names:
            b = systems[n]["by_group"].get(g)
            if b:
                rows.append(
                    [g, n, str(int(b["n"])), _f(b.get("f1")), _f(b.get("f1_h")), _f(b.get("recall@10"))]
                )
    head = ["## By group (subpart / question group): F1 exact, F1 hierarchy, Recall@10", ""]
    return head + _table(["group", "system", "n", "F1", "F1 (hier.)", "Recall@10"], rows) + [""]


def _answerability(systems: dict[str, Any], meta: dict[str, Any]) -> list[str]:
    rows = [
        [
            n,
            _f(systems[n]["answerability"].get("auroc_top_score")),
            _f(systems[n]["answerability"].get("refusal_rate_unanswerable")),
            _f(systems[n]["answerability"].get("false_refusal_rate")),
            _f(meta["systems"][n]["warm_up_seconds"], 1),
            _f(systems[n]["metrics"]["seconds"]["mean"] * 1000, 1),
        ]
        for n in systems
    ]
    header = [
        "system",
        "AUROC (top score)",
        "refusal (unanswerable)",
        "false refusal",
        "warm-up s",
        "ms / question",
    ]
    return ["## Answerability and timing", ""] + _table(header, rows) + [""]


def _significance(sig: dict[str, Any]) -> list[str]:
    if not sig.get("vs_reference"):
        return []
    ref = sig["reference"]
    lines = [f"## Significance vs {ref} (paired, same questions)", ""]
    rows = []
    for n, c in sig["vs_reference"].items():
        for m, v in c["metrics"].items():
            rows.append([n, m, _f(v["mean_a"]), _f(v["mean_b"]), _f(v["diff"], 3), _f(v["wilcoxon_p"], 4)])
    lines += _table(["system", "metric", ref, "system", "diff", "Wilcoxon p"], rows) + [""]
    rows = [
        [
            n,
            str(c["mcnemar"]["only_a"]),
            str(c["mcnemar"]["only_b"]),
            _f(c["mcnemar"]["pvalue"], 4),
            str(len(c["fixed"])),
            str(len(c["broken"])),
        ]
        for n, c in sig["vs_reference"].items()
    ]
    lines += _table(
        ["system", f"hit@10 only {ref}", "hit@10 only system", "McNemar exact p", "fixed", "broken"], rows
    ) + [""]
    for key in ("friedman_f1", "friedman_recall@10"):
        if key in sig:
            fr = sig[key]
            lines.append(
                f"- {key.replace('_', ' ', 1)}: chi2 = {_f(fr['statistic'], 2)}, p = {_f(fr['pvalue'], 4)}; "
                "pairwise Wilcoxon (Holm): "
                + ", ".join(f"{k} p={_f(v, 4)}" for k, v in fr["pairwise_holm"].items())
            )
    return lines + [""]


def save_plots(out_dir: Path, doc: dict[str, Any]) -> list[Path]:
    """Per-group F1 (hierarchy) and Recall@10 bars for every system, and a recall@k curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    systems, ks = doc["systems"], doc["meta"]["k_values"]
    names = list(systems)
    paths = []
    groups = sorted({g for n in names for g in systems[n]["by_group"]})
    if groups and len(groups) <= 40:
        fig, axes = plt.subplots(1, 2, figsize=(max(8, 1.2 * len(groups) * max(1, len(names)) / 2), 4))
        width = 0.8 / max(1, len(names))
        x = np.arange(len(groups))
        for ax, metric in zip(axes, ("f1_h", "recall@10")):
            for i, n in enumerate(names):
                vals = [systems[n]["by_group"].get(g, {}).get(metric) or 0.0 for g in groups]
                ax.bar(x + i * width, vals, width, label=n)
            ax.set_xticks(x + width * (len(names) - 1) / 2, groups)
            ax.set_ylim(0, 1)
            ax.set_title(metric)
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        paths.append(out_dir / "by_group.png")
        fig.savefig(paths[-1], dpi=120)
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(5, 4))
    for n in names:
        ax.plot(
            ks,
            [(systems[n]["metrics"].get(f"recall@{k}") or {}).get("mean") or 0.0 for k in ks],
            marker="o",
            label=n,
        )
    ax.set_xlabel("k")
    ax.set_ylabel("Recall@k")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(out_dir / "recall_at_k.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return paths
