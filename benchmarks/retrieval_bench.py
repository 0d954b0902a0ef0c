"""Benchmark: retrieval-only latency (no chat model, no answer) over a question set.

Reports p50/p95 of `HybridRetriever.retrieve` per store, the stage timings, and the memory of
the loaded indexes. Run on a home where the corpus is built (e.g. `make demo`'s):
`.venv/bin/python benchmarks/retrieval_bench.py --home .bifrost-demo [--neo4j bolt://127.0.0.1:7687]`.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def measure(settings: Settings, corpus: str, questions: list[str], export: bool) -> dict:
    bf = Bifrost(settings)
    try:
        if export:
            bf.export_neo4j(corpus)
        before = rss_mb()
        retr = bf.retriever(corpus)
        retr.retrieve(questions[0])  # warm caches and models
        loaded = rss_mb()
        times, stages = [], {"decompose": [], "match": [], "traverse": []}
        for q in questions:
            t = time.perf_counter()
            res = retr.retrieve(q)
            times.append((time.perf_counter() - t) * 1000)
            for k in stages:
                stages[k].append(res.timings[k] * 1000)
        return {
            "store": settings.store,
            "questions": len(questions),
            "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(percentile(times, 0.95), 1),
            "stage_p50_ms": {k: round(statistics.median(v), 1) for k, v in stages.items()},
            "eng_index_mb": round(retr.index.nbytes / 2**20, 1),
            "peak_rss_mb_after_load": round(loaded, 1),
            "rss_growth_mb_loading": round(loaded - before, 1),
        }
    finally:
        bf.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--home", type=Path, required=True, help="BIFROST_HOME with the corpus built")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--questions", type=Path, default=Path("../shared/eval/osha-loi-dev.jsonl"))
    ap.add_argument("--neo4j", help="Bolt URI: also measure on Neo4j (the graphs are exported there first)")
    args = ap.parse_args()
    questions = [json.loads(line)["question"] for line in args.questions.read_text().splitlines() if line.strip()]
    results = [measure(Settings(home=args.home), args.corpus, questions, export=False)]
    if args.neo4j:
        results.append(measure(Settings(home=args.home, store="neo4j", neo4j_uri=args.neo4j), args.corpus, questions, True))
    print(json.dumps({"benchmark": "retrieval latency", "corpus": args.corpus, "results": results}, indent=2))


if __name__ == "__main__":
    main()
