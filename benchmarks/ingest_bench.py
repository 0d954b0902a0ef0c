"""Benchmark: ingest all of Part 1926 and build its navigator graph on the embedded store.

Reports wall seconds per stage and peak resident memory, as JSON. Run: `make bench` or
`.venv/bin/python -m benchmarks.ingest_bench [--shared ../shared] [--repeat 3]`.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings


def run_once(shared: Path) -> dict:
    with tempfile.TemporaryDirectory() as home:
        bf = Bifrost(Settings(home=Path(home), shared_dir=shared))
        t0 = time.perf_counter()
        report = bf.ingest("osha-1926")
        t1 = time.perf_counter()
        nav = bf.build_navigator("osha-1926")
        t2 = time.perf_counter()
        bf.close()
    return {
        "ingest_s": round(t1 - t0, 2),
        "navigator_s": round(t2 - t1, 2),
        "total_s": round(t2 - t0, 2),
        "provisions": report.added,
        "has_edges": nav.has_edges,
        "refers_to_edges": nav.refers_to_edges,
        "dangling": nav.dangling,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shared", type=Path, default=Path("../shared"), help="shared data folder")
    ap.add_argument("--repeat", type=int, default=3, help="runs (median reported)")
    args = ap.parse_args()
    runs = [run_once(args.shared.resolve()) for _ in range(args.repeat)]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {
        "benchmark": "ingest + navigator build, 29 CFR 1926, embedded store",
        "runs": runs,
        "median_total_s": statistics.median(r["total_s"] for r in runs),
        "peak_rss_mb": round(peak_mb, 1),
        "target_s": 20,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
