"""Benchmark: the evaluation harness on the OSHA letters-of-interpretation dev set.

Ingests Part 1926 into a home (a temporary one unless --home is given, which keeps the dense
embedding cache between runs), runs the chosen systems on every dev question and prints JSON:
wall seconds per system (warm-up, answering) and the headline metrics.
Run: `.venv/bin/python -m benchmarks.eval_bench [--shared ../shared] [--systems bm25,dense,rrf] [--home DIR]`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.eval.runner import run_eval

HEADLINE = (
    "recall@10",
    "map@10",
    "ndcg@10",
    "mrr",
    "precision",
    "recall",
    "f1",
    "precision_h",
    "recall_h",
    "f1_h",
    "f1_sec",
)


def run(shared: Path, home: Path, systems: str, questions: str, limit: int | None) -> dict:
    settings = Settings(home=home, shared_dir=shared)
    bf = Bifrost(settings)
    try:
        if "osha-1926" not in bf.sql.corpora():
            bf.ingest("osha-1926")
    finally:
        bf.close()
    t0 = time.perf_counter()
    res = run_eval("osha-1926", shared / questions, systems, home / "runs" / "bench", settings, limit=limit)
    total = time.perf_counter() - t0
    out = {
        "total_s": round(total, 2),
        "questions": res.metrics["meta"]["questions"]["n_run"],
        "skipped": res.skipped,
        "failed": res.failed,
    }
    for name, s in res.metrics["systems"].items():
        meta = res.metrics["meta"]["systems"][name]
        out[name] = {
            "warm_up_s": round(meta["warm_up_seconds"], 2),
            "answer_s": round(meta["answer_seconds"], 2),
            **{m: round(s["metrics"][m]["mean"], 4) for m in HEADLINE},
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shared", type=Path, default=Path("../shared"))
    ap.add_argument("--systems", default="bm25,dense,rrf")
    ap.add_argument("--questions", default="eval/osha-loi-dev.jsonl")
    ap.add_argument(
        "--home", type=Path, default=None, help="Keep state here (dense cache reused); default: a temp dir"
    )
    ap.add_argument("--limit", type=int, default=None)
    a = ap.parse_args()
    if a.home:
        print(json.dumps(run(a.shared, a.home, a.systems, a.questions, a.limit), indent=2))
        return
    with tempfile.TemporaryDirectory() as home:
        print(json.dumps(run(a.shared, Path(home), a.systems, a.questions, a.limit), indent=2))


if __name__ == "__main__":
    main()
