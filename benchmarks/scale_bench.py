"""Benchmark: how cost grows with the corpus (issue 17, item 3), at 1x, 2x, 4x, 8x Part 1926.

For each size, a fresh home under ``--work`` (SQLite + the embedded graph store, the defaults)
is built in its own process, stage by stage: ingest, navigator build, offline entity build
(``extractor="offline"``, spaCy; extraction, refiner and store writes) and the index write that
`build entities` ends with (BM25, dense and entity matrices under ``<home>/index``), each timed,
with that process's peak RSS. Then ``retrieval_bench.py`` runs in a new process on the home:
p50/p95 of retrieval without a chat model over ``--questions`` with the ranker a fresh home has
(the hybrid: no ranker is trained) and the rrf baseline (BM25 + dense fused) in the same run,
and the RSS after loading every index. Index memory is also given as file sizes on disk.

How the corpora are made (details in ``scale_corpus.py``): 1x is Part 1926 as `bifrost ingest --corpus
osha-1926` reads it (10,111 provisions); copy k is
Part ``(k+1)926`` (2926, 3926, ...) with every ``1926`` renumbered (ids, titles, paths, citations) and
the part number appended to each line of text, so ids never collide, cross-references stay in
their copy and no copied section has its original's text (nothing is served from the extraction
journal or a per-text cache). Entity names and relation phrases repeat across copies, so the
name-vector cache serves them and the refiner merges them, as it would for shared vocabulary in
a real larger rulebook; a fraction (``0.25``) takes the first sections of the next copy.

Slopes are log-log between consecutive sizes on the provision count (1.0 = linear). The machine
is shared: the 1-minute load average is recorded at the start and end of each size; run it
under ``nice``. Writes ``scale.json`` and ``scale.md`` to ``--out`` after every size.

    HF_HUB_OFFLINE=1 nice -n 19 python -m benchmarks.scale_bench --sizes 1,2,4,8 --work /tmp/scale --out
    runs/scale
    HF_HUB_OFFLINE=1 python -m benchmarks.scale_bench --sizes 0.05,0.1 --work /tmp/scale --out runs/scale   #
    quick
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.scale_corpus import markdown, multiply, multiply_structure, slopes, SLOPE_KEYS

HERE = Path(__file__).resolve().parent
CORPUS = "scale"
SOURCE = "corpora/osha-1926/part-1926.json"
STRUCTURE = "corpora/osha-1926/title-29-structure.json"


def sizes_arg(text: str) -> list[float]:
    """``1,2,4,8`` -> [1.0, 2.0, 4.0, 8.0]; a one-line error naming --sizes otherwise."""
    try:
        sizes = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes: expected numbers like 1,2,4,8, got {text!r}") from None
    if not sizes or any(not (0 < s <= 9) for s in sizes):
        raise argparse.ArgumentTypeError(f"--sizes: each size must be in (0, 9], got {text!r}")
    return sorted(set(sizes))


def label(size: float) -> str:
    return f"{size:g}x"


def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


def write_sources(shared: Path, size: float, folder: Path) -> tuple[Path, Path]:
    """The multiplied part JSON and structure file of one size."""
    folder.mkdir(parents=True, exist_ok=True)
    sections = json.loads((shared / SOURCE).read_text(encoding="utf-8"))
    tree = json.loads((shared / STRUCTURE).read_text(encoding="utf-8"))
    source, structure = folder / "parts.json", folder / "structure.json"
    source.write_text(json.dumps(multiply(sections, size)), encoding="utf-8")
    structure.write_text(json.dumps(multiply_structure(tree, size)), encoding="utf-8")
    return source, structure


def timed(times: dict, step: str, fn):
    t0 = time.perf_counter()
    out = fn()
    times[step] = round(time.perf_counter() - t0, 2)
    return out


def build_one(shared: Path, size: float, home: Path) -> dict:
    """Ingest, navigator, offline entities and index files of one size in a fresh home (this process)."""
    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings
    from bifrost.graph_builders.ingest import ingest_sources

    shutil.rmtree(home, ignore_errors=True)
    source, structure = write_sources(shared, size, home.parent / "sources")
    bf = Bifrost(Settings(home=home, shared_dir=shared))
    times: dict[str, float] = {}
    write_indexes = bf.write_indexes  # the last step of build_entities, timed on its own

    def timed_write(corpus: str) -> None:
        timed(times, "index_write_s", lambda: write_indexes(corpus))

    bf.write_indexes = timed_write  # type: ignore[method-assign]
    try:
        with bf.sql.writer_lock(CORPUS):  # Bifrost.ingest reads Part 1926 only; copies are other parts
            report = timed(
                times,
                "ingest_s",
                lambda: ingest_sources(
                    bf.sql, CORPUS, [source], jurisdiction="us-cfr", structure_path=structure, parts=None
                ),
            )
        if report.errors:
            raise SystemExit(f"error: ingest of {source} failed: {report.errors[0]}")
        nav = timed(times, "navigator_s", lambda: bf.build_navigator(CORPUS))
        eng = timed(times, "entities_total_s", lambda: bf.build_entities(CORPUS, "offline"))
        stats = bf.stats(CORPUS)
    finally:
        bf.close()
    times["entities_s"] = round(times["entities_total_s"] - times.get("index_write_s", 0.0), 2)
    return {
        **times,
        "provisions": report.added,
        "oddities": len(report.oddities),
        "refers_to_edges": nav.refers_to_edges,
        "dangling": nav.dangling,
        "entities": stats.entities,
        "relations": stats.relations,
        "extracted": getattr(eng, "extracted", None),
        "build_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def disk_mb(home: Path) -> dict:
    """Index files (by kind) and the SQLite database, in MiB."""
    kinds: dict[str, int] = {}
    for f in (home / "index").rglob("*"):
        if f.is_file():  # index/<corpus>/<kind>-<hash>[/...]: bm25, dense, eng
            kind = f.relative_to(home / "index").parts[1].split("-")[0]
            kinds[kind] = kinds.get(kind, 0) + f.stat().st_size
    db = sum(f.stat().st_size for f in home.glob("bifrost.db*"))
    return {
        "index_files_mb": {k: round(v / 2**20, 1) for k, v in sorted(kinds.items())},
        "index_mb": round(sum(kinds.values()) / 2**20, 1),
        "db_mb": round(db / 2**20, 1),
    }


def run_child(args: list[str]) -> dict:
    """Run a module of this package in a new Python process (``-m benchmarks.X``); its stdout is one JSON
    object."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=HERE.parent)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"error: {' '.join(args[:3])} exited {done.returncode}: {tail}")
    return json.loads(done.stdout[done.stdout.index("{") :])


def retrieval(home: Path, questions: Path, limit: int) -> dict:
    """p50/p95 of the hybrid and the rrf baseline, and RSS after loading (retrieval_bench.py)."""
    out = run_child(
        [
            "-m",
            "benchmarks.retrieval_bench",
            "--home",
            str(home),
            "--corpus",
            CORPUS,
            "--questions",
            str(questions),
            "--limit",
            str(limit),
            "--rankers",
            "rrf,hybrid",
        ]
    )
    by = {r["ranker"]: r for r in out["results"]}
    rrf, hyb = by["rrf"], by["hybrid"]
    return {
        "p50_ms": hyb["p50_ms"],
        "p95_ms": hyb["p95_ms"],
        "rrf_p50_ms": rrf["p50_ms"],
        "rrf_p95_ms": rrf["p95_ms"],
        "p50_ratio_to_rrf": hyb.get("p50_ratio_to_rrf"),
        "questions": hyb["questions"],
        "stage_p50_ms": hyb["stage_p50_ms"],
        "eng_index_mb": hyb.get("eng_index_mb"),
        # the rrf pass loads every index first (BM25, dense, entity network) and the models
        "rss_after_load_mb": rrf["peak_rss_mb_after_load"],
        "rss_growth_loading_mb": rrf["rss_growth_mb_loading"],
    }


def measure_size(args: argparse.Namespace, size: float) -> dict:
    """Build one size in a child process, then time retrieval in another; load average around both."""
    home = args.work / label(size) / "home"
    row: dict = {"size": label(size), "load_avg_start": load_avg()}
    t0 = time.perf_counter()
    child = [
        "-m",
        "benchmarks.scale_bench",
        "--build-one",
        str(size),
        "--home",
        str(home),
        "--shared",
        str(args.shared),
    ]
    row.update(run_child(child + (["--profile"] if args.profile else [])))
    row.update(disk_mb(home))
    if not args.profile:  # a profiled run is for the build stages only
        row.update(retrieval(home, args.questions, args.limit))
    row["wall_s"] = round(time.perf_counter() - t0, 1)
    row["load_avg_end"] = load_avg()
    row["load_avg"] = [row["load_avg_start"], row["load_avg_end"]]
    if not args.keep:
        shutil.rmtree(args.work / label(size), ignore_errors=True)
    return row


def save(out: Path, rows: list[dict], meta: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    result = {**meta, "sizes": rows, "slopes": slopes(rows, SLOPE_KEYS)}
    (out / "scale.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    (out / "scale.md").write_text(markdown(rows), encoding="utf-8")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], epilog="Corpora and method: see the module docstring."
    )
    ap.add_argument(
        "--sizes",
        type=sizes_arg,
        default=sizes_arg("1,2,4,8"),
        help="comma list of sizes in units of Part 1926 (default 1,2,4,8; 0.05,0.1 for a quick run)",
    )
    ap.add_argument(
        "--shared", type=Path, default=Path("../shared"), help="shared data folder (default ../shared)"
    )
    ap.add_argument(
        "--work",
        type=Path,
        default=Path("/tmp/scale-bench"),
        help="scratch folder for the homes (one per size)",
    )
    ap.add_argument("--out", type=Path, default=Path("runs/scale"), help="folder for scale.json and scale.md")
    ap.add_argument(
        "--questions",
        type=Path,
        default=None,
        help="question set (default: <shared>/eval/osha-loi-dev.jsonl)",
    )
    ap.add_argument(
        "--limit", type=int, default=100, help="at most this many questions per size (default 100)"
    )
    ap.add_argument(
        "--keep", action="store_true", help="keep each size's home (default: deleted after measuring)"
    )
    ap.add_argument(
        "--json", action="store_true", help="print the result JSON at the end (it is always written to --out)"
    )
    ap.add_argument(
        "--profile",
        action="store_true",
        help="run each build under cProfile (slower: for finding out why a stage grows, not for the "
        "figures); writes <work>/<size>/build.prof",
    )
    ap.add_argument("--build-one", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.shared = args.shared.resolve()
    args.questions = (args.questions or args.shared / "eval/osha-loi-dev.jsonl").resolve()
    for p in (args.shared / SOURCE, args.shared / STRUCTURE, args.questions):
        if not p.exists():
            ap.error(f"{p} not found; pass --shared or --questions")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.build_one is not None:
        home = args.home.resolve()
        if not args.profile:
            print(json.dumps(build_one(args.shared, args.build_one, home)))
            return
        import cProfile

        with cProfile.Profile() as prof:
            row = build_one(args.shared, args.build_one, home)
        prof.dump_stats(home.parent / "build.prof")
        print(json.dumps({**row, "profiled": True}))
        return
    args.work, args.out = args.work.resolve(), args.out.resolve()
    meta = {
        "benchmark": "cost against corpus size",
        "corpus": "Part 1926 and renumbered, tagged copies",
        "store": "sqlite + embedded graph",
        "extractor": "offline",
        "ranker": "hybrid (no trained ranker)",
        "cpus": os.cpu_count(),
        "nice": os.nice(0),
    }
    rows: list[dict] = []
    for size in args.sizes:
        rows.append(measure_size(args, size))
        save(args.out, rows, meta)
        print(f"{label(size)}: {json.dumps(rows[-1])}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({**meta, "sizes": rows, "slopes": slopes(rows, SLOPE_KEYS)}, indent=1))
    else:
        print(markdown(rows))


if __name__ == "__main__":
    main()
