"""Benchmark of the offline Entity Network build: L+M+P+X counts and time, tau sweep, full Part 1926.

Each run ingests ``part-1926.json`` into a fresh temporary BIFROST_HOME through the facade.
(a) offline build of Subparts L, M, P, X: seconds, entities, relations (the paper's GPT-4o graph:
3,442 nodes, 6,221 relationships); (b) entities per tau, extracting once and refining per tau;
(c) ``--full``: the whole part. Prints one JSON object; ``max_rss_mb`` is the process peak so far.

    HF_HUB_OFFLINE=1 python -m benchmarks.eng_bench [--shared ../shared] [--full] [--taus 0.8 0.85 0.9 0.95
    1.0]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.provisions import within_subparts
from bifrost.graph_builders.entities.extractors import make_entity_extractor
from bifrost.core.settings import Settings

CORPUS = "osha-1926"
SOURCE = "corpora/osha-1926/part-1926.json"
PAPER_LMPX = {"nodes": 3442, "relationships": 6221, "extractor": "GPT-4o agents"}


def max_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def fresh_bifrost(home: Path, shared: Path) -> tuple[Bifrost, dict]:
    """A facade on a new home with the corpus ingested, its navigator built and models loaded."""
    bf = Bifrost(Settings(home=home, shared_dir=shared))
    t0 = time.perf_counter()
    bf.ingest(CORPUS, [shared / SOURCE])
    bf.build_navigator(CORPUS)
    t1 = time.perf_counter()
    make_entity_extractor(bf.resources, CORPUS, "offline").warm_up()
    bf.embedder.warm_up()
    t2 = time.perf_counter()
    return bf, {"ingest_navigator_s": round(t1 - t0, 2), "model_load_s": round(t2 - t1, 2)}


def bench_build(shared: Path, subparts: Sequence[str] | None, tau: float) -> dict:
    """(a)/(c) One offline `build_entities` run (all of the part when ``subparts`` is None)."""
    with tempfile.TemporaryDirectory(prefix="eng_bench_") as home:
        bf, setup = fresh_bifrost(Path(home), shared)
        t0 = time.perf_counter()
        report = bf.build_entities(CORPUS, "offline", tau, subparts=list(subparts) if subparts else None)
        seconds = time.perf_counter() - t0
        stats = bf.stats(CORPUS)
        bf.close()
    return {
        "subparts": list(subparts) if subparts else "all",
        "tau": tau,
        **setup,
        "build_s": round(seconds, 2),
        "provisions": report.provisions_processed,
        "mentions": report.mentions,
        "entities": report.entities,
        "relations": report.relations,
        "relation_types": report.relation_types,
        "failed": len(report.failed),
        "graph_entities": stats.entities,
        "graph_relations": stats.relations,
        "max_rss_mb": max_rss_mb(),
    }


def bench_tau(shared: Path, subparts: Sequence[str], taus: Sequence[float]) -> dict:
    """(b) Extract the subparts once, then refine the same extractions with each tau."""
    from bifrost.graph_builders.entities.build import refine_extractions
    from bifrost.graph_builders.entities.refiner import IncrementalEntityRefiner

    with tempfile.TemporaryDirectory(prefix="eng_bench_") as home:
        bf, setup = fresh_bifrost(Path(home), shared)
        todo = [p for p in within_subparts(bf.sql.provisions(CORPUS), subparts) if not p.reserved]
        t0 = time.perf_counter()
        extractions = list(make_entity_extractor(bf.resources, CORPUS, "offline").extract_many(todo))
        extract_s = time.perf_counter() - t0
        rows = []
        for tau in taus:  # the embedder's cache keeps vectors of names seen at an earlier tau
            refiner = IncrementalEntityRefiner(bf.embedder, tau=tau, corpus=CORPUS)
            t1 = time.perf_counter()
            mentions = refine_extractions(refiner, extractions)
            rows.append(
                {
                    "tau": tau,
                    "entities": len(refiner),
                    "relations": len(refiner.triples()),
                    "mentions": mentions,
                    "refine_s": round(time.perf_counter() - t1, 2),
                }
            )
        bf.close()
    return {
        "subparts": list(subparts),
        **setup,
        "provisions": len(todo),
        "extract_s": round(extract_s, 2),
        "by_tau": rows,
        "max_rss_mb": max_rss_mb(),
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=None, help="shared data folder (default: ../shared)")
    ap.add_argument("--subparts", nargs="+", default=["L", "M", "P", "X"])
    ap.add_argument("--tau", type=float, default=None, help="tau of the builds (default: settings, 0.95)")
    ap.add_argument(
        "--taus",
        type=float,
        nargs="*",
        default=[0.80, 0.85, 0.90, 0.95, 1.00],
        help="tau sweep; none to skip",
    )
    ap.add_argument("--full", action="store_true", help="also time the offline build of the whole part")
    args = ap.parse_args(argv)
    settings = Settings()
    shared = args.shared or settings.resolve_shared_dir()
    if shared is None or not (shared / SOURCE).exists():
        raise SystemExit(f"error: {SOURCE} not found under {shared}; pass --shared")
    tau = settings.tau if args.tau is None else args.tau
    out: dict = {
        "corpus": CORPUS,
        "spacy_model": settings.spacy_model,
        "embedding_model": settings.embedding_model,
        "paper_lmpx": PAPER_LMPX,
    }
    out["lmpx_build"] = bench_build(shared, args.subparts, tau)
    if args.taus:
        out["tau_sweep"] = bench_tau(shared, args.subparts, args.taus)
    if args.full:
        out["full_build"] = bench_build(shared, None, tau)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
