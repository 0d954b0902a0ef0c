"""Ablation: the default hybrid retriever with and without the Document Navigator Graph.

    python examples/ablation.py --home .bifrost-demo --corpus osha-1926 \
        --questions ../shared/eval/osha-loi-dev.jsonl --out runs/ablation

Runs two systems through `bifrost.eval.runner.run_eval` (metrics.json, per_question.jsonl and report.md
in --out), then prints one table and draws one plot (recall@k of both systems).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

from bifrost.core.settings import Settings  # noqa: E402
from bifrost.eval.runner import run_eval  # noqa: E402

SYSTEMS = "bifrost-hybrid,bifrost-hybrid:use_dng=false"
METRICS = ["recall@10", "map@10", "ndcg@10", "f1", "f1_h"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="BIFROST_HOME with the corpus built")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--questions", type=Path, required=True, help="JSONL, ObliQA or ObliQA-MP")
    ap.add_argument("--systems", default=SYSTEMS, help=f"Systems to compare (default {SYSTEMS})")
    ap.add_argument("--out", type=Path, default=Path("runs/ablation"))
    args = ap.parse_args()

    run = run_eval(args.corpus, args.questions, args.systems, args.out, Settings(home=args.home), plots=False)
    systems = run.metrics["systems"]
    print("| system | " + " | ".join(METRICS) + " |")
    print("|---" * (len(METRICS) + 1) + "|")
    for name, doc in systems.items():
        means = [doc["metrics"][m]["mean"] for m in METRICS]
        print(f"| {name} | " + " | ".join("-" if v is None else f"{v:.3f}" for v in means) + " |")

    ks = run.metrics["meta"]["k_values"]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for name, doc in systems.items():
        ax.plot(ks, [doc["metrics"][f"recall@{k}"]["mean"] for k in ks], marker="o", label=name)
    ax.set_xticks(ks)
    n = run.metrics["meta"]["questions"]["n_run"]
    ax.set(xlabel="k", ylabel="recall@k", title=f"{args.corpus}: {n} questions")
    ax.legend()
    fig.tight_layout()
    fig.savefig(plot := args.out / "ablation.png", dpi=120)
    print(f"\nplot: {plot}; skipped: {run.skipped or 'none'}; failed: {run.failed or 'none'}")


if __name__ == "__main__":
    main()
