"""Benchmark: retrieval-only latency (no chat model, no answer) over a question set.

Reports p50/p95 of `retrieve` per ranker (the hand-set hybrid, the learned ranker when one is trained, and the
rrf baseline: BM25 + dense fused) and store, the stage timings, the memory of the loaded indexes, and each
ranker's p50 as a ratio to rrf's in the same run. Run on a home where the corpus is built (e.g. `make
demo`'s): `.venv/bin/python -m benchmarks.retrieval_bench --home .bifrost-demo [--neo4j
bolt://127.0.0.1:7687]`.
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
from bifrost.eval.questions import load_questions
from bifrost.retrieval.config import RetrievalConfig


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def rrf_baseline(bf: Bifrost, corpus: str):
    """BM25 and dense fused by RRF over the same loaded indexes (what `bifrost eval`'s rrf does)."""
    from bifrost.retrieval.fusion import rrf_fuse

    ch = bf.pipeline.parts(corpus).channels

    def retrieve(q: str) -> None:
        rrf_fuse([[it.id for it in ch.bm25.search(q, 100)], [it.id for it in ch.dense.search(q, 100)]])

    return retrieve


def measure(settings: Settings, corpus: str, questions: list[str], export: bool, ranker: str) -> dict:
    bf = Bifrost(
        settings,
        RetrievalConfig.from_settings(settings).model_copy(update={"ranker": ranker})
        if ranker != "rrf"
        else None,
    )
    try:
        if export:
            bf.export_neo4j(corpus)
        before = rss_mb()
        retrieve = rrf_baseline(bf, corpus) if ranker == "rrf" else bf.retriever(corpus).retrieve
        retrieve(questions[0])  # warm caches and models
        loaded = rss_mb()
        times, stages = [], {}
        for q in questions:
            t = time.perf_counter()
            res = retrieve(q)
            times.append((time.perf_counter() - t) * 1000)
            for k, v in res.timings.items() if res is not None else ():
                stages.setdefault(k, []).append(v * 1000)
        out = {
            "ranker": ranker,
            "store": settings.store,
            "questions": len(questions),
            "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(percentile(times, 0.95), 1),
            "stage_p50_ms": {k: round(statistics.median(v), 1) for k, v in stages.items()},
            "peak_rss_mb_after_load": round(loaded, 1),
            "rss_growth_mb_loading": round(loaded - before, 1),
        }
        if ranker != "rrf":
            out["eng_index_mb"] = round(bf.retriever(corpus).index.nbytes / 2**20, 1)
        return out
    finally:
        bf.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--home", type=Path, required=True, help="BIFROST_HOME with the corpus built")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--questions", type=Path, default=Path("../shared/eval/osha-loi-dev.jsonl"))
    ap.add_argument("--limit", type=int, default=200, help="At most this many questions")
    ap.add_argument(
        "--rankers",
        default="rrf,hybrid,ltr",
        help="Comma list of rrf, hybrid, ltr (ltr needs `bifrost train ranker`)",
    )
    ap.add_argument("--neo4j", help="Bolt URI: also measure on Neo4j (the graphs are exported there first)")
    args = ap.parse_args()
    shared = Settings().resolve_shared_dir()
    qset = load_questions(
        args.questions, documents_dir=(shared / "corpora/adgm/documents") if shared else None
    )
    questions = [q.question for q in qset.questions][: args.limit]
    settings = Settings(home=args.home)
    rankers = [r.strip() for r in args.rankers.split(",") if r.strip()]
    results = [measure(settings, args.corpus, questions, False, r) for r in rankers]
    if args.neo4j:
        neo = Settings(home=args.home, store="neo4j", neo4j_uri=args.neo4j)
        results += [
            measure(neo, args.corpus, questions, i == 0, r)
            for i, r in enumerate(x for x in rankers if x != "rrf")
        ]
    base = next((r["p50_ms"] for r in results if r["ranker"] == "rrf"), None)
    for r in results:
        if base:
            r["p50_ratio_to_rrf"] = round(r["p50_ms"] / base, 2)
    print(json.dumps({"benchmark": "retrieval latency", "corpus": args.corpus, "results": results}, indent=2))


if __name__ == "__main__":
    main()
