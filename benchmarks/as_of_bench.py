"""Latency of `bifrost ask --as-of` (a past edition) against `bifrost ask` (the current one), in the same run.

Copies a built home that holds at least two editions of a corpus (e.g. the demo home with the
Part 1926 edition B of `tests.editions_fixture` ingested with a later --edition-date), deletes the
past edition's cached dense matrix in the copy, then times whole CLI processes: the current-edition
question twice (the second is the baseline: caches warm), the --as-of question twice (first: the
edition's matrix is built, reusing cached vectors of unchanged texts; second: read from disk).
Prints one JSON object with wall seconds, the answers' own `timings.total`, and ratios to the baseline.

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 python -m benchmarks.as_of_bench \
        --home /tmp/asof-bench/home --corpus osha-1926 --as-of 2026-01-01
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.load_bench import copy_home  # the same consistent copy of a home in use

QUESTION = "When are safety nets required and how far below the working surface must they be installed?"


def edition_cache(home: Path, corpus: str, as_of: str) -> tuple[int, list[Path]]:
    """The past edition's number and its dense cache files in ``home``."""
    from bifrost.core.settings import Settings
    from bifrost.core.store.sql_store import SqlStore
    from bifrost.retrieval.channels.dense import cache_path
    from bifrost.retrieval.channels.documents import build_documents, load_provisions

    settings = Settings(home=home)
    store = SqlStore(settings.sql_url)
    try:
        number = store.edition(corpus, as_of=as_of).number
    finally:
        store.dispose()
    docs = build_documents(load_provisions(settings, corpus, number), "context")
    path = cache_path(home, corpus, settings.embedding_model, docs)
    return number, [path, path.with_suffix(".ids.json")]


def timed_ask(home: Path, corpus: str, question: str, as_of: str | None) -> dict:
    """Wall seconds of one `bifrost ask --json` process, with the answer's edition and timings."""
    cmd = [
        sys.executable,
        "-m",
        "bifrost.app.cli.app",
        "--home",
        str(home),
        "ask",
        question,
        "--corpus",
        corpus,
        "--json",
    ]
    cmd += ["--as-of", as_of] if as_of else []
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy(), check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"ask failed: {done.stderr.strip()[-300:]}")
    answer = json.loads(done.stdout)
    return {
        "wall_s": round(wall, 2),
        "total_s": round(answer["timings"].get("total", 0.0), 2),
        "edition": (answer.get("edition") or {}).get("number"),
        "cited": [c["id"] for c in answer["citations"]],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True, help="A built home with two or more editions")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--as-of", required=True, help="A date in a past edition")
    ap.add_argument("--question", default=QUESTION)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="as-of-bench-") as tmp:
        home = Path(tmp) / "home"
        copy_home(args.home, home)
        number, files = edition_cache(home, args.corpus, args.as_of)
        for f in files:
            f.unlink(missing_ok=True)
        runs = {
            "current_first": timed_ask(home, args.corpus, args.question, None),
            "current_warm": timed_ask(home, args.corpus, args.question, None),
            "as_of_first": timed_ask(home, args.corpus, args.question, args.as_of),
            "as_of_second": timed_ask(home, args.corpus, args.question, args.as_of),
        }
    base = runs["current_warm"]["wall_s"] or 1.0
    print(
        json.dumps(
            {
                "corpus": args.corpus,
                "as_of": args.as_of,
                "edition": number,
                "question": args.question,
                "runs": runs,
                "ratio_to_current_warm": {k: round(v["wall_s"] / base, 2) for k, v in runs.items()},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
