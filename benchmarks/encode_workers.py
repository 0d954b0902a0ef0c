"""Benchmark: a corpus-sized encode on onnxruntime with its batches one after another (workers 1) and side by
side (one per core), interleaved in one run, on the same texts; the vectors must be identical.

`.venv/bin/python -m benchmarks.encode_workers --home .bifrost-demo --limit 1000 --repeats 3`
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from bifrost.core.embeddings import onnx_folder, resolve_model
from bifrost.core.onnx_encoder import REMAKE, OnnxEncoder, has_export, usable_cores
from bifrost.core.settings import Settings
from bifrost.core.store.sql_store import SqlStore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--home", type=Path, required=True, help="a BIFROST_HOME with the corpus and its ONNX export"
    )
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--limit", type=int, default=1000, help="encode the first this many provision texts")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    settings = Settings(home=args.home)
    sql = SqlStore(settings.sql_url)
    texts = [p.text for p in sql.provisions(args.corpus) if p.text][: args.limit]
    model = Path(resolve_model(settings.embedding_model))
    if not has_export(onnx_folder(args.home), model):
        raise SystemExit(f"{args.home} has no ONNX export of {settings.embedding_model}: run {REMAKE} first")
    cores = usable_cores()
    encoders = {w: OnnxEncoder(model, onnx_folder(args.home), threads=1, workers=w) for w in (1, cores)}
    times: dict[int, list[float]] = {w: [] for w in encoders}
    vectors: dict[int, np.ndarray] = {}
    for _ in range(args.repeats):
        for w, enc in encoders.items():
            start = time.perf_counter()
            vectors[w] = enc.encode(texts)
            times[w].append(time.perf_counter() - start)
    same = np.array_equal(vectors[1], vectors[cores])
    print(f"{len(texts)} provision texts of {args.corpus}, {cores} cores, {args.repeats} repeats (median s)")
    for w, ts in times.items():
        median = statistics.median(ts)
        print(f"  workers {w}: {median:.2f} s  ({len(texts) / median:.0f} texts/s)")
    ratio = statistics.median(times[1]) / statistics.median(times[cores])
    print(f"  side by side is {ratio:.2f}x as fast; vectors identical: {same}")


if __name__ == "__main__":
    main()
