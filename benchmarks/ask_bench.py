"""Warm `ask` latency (retrieval and the answer step, no chat model) for one or more code trees, same run.

For each round and each code tree (``--code``, a checkout whose packages go first on PYTHONPATH), a new
process opens the home, asks ``--warm`` questions untimed (models and indexes loaded), then times `ask`
on each question of ``--questions`` (at most ``--limit``). Rounds are interleaved so that background load
hits every tree alike. Reports each tree's p50 and p95 (median over rounds) and its p50 as a ratio to
the first tree's. Each tree gets its own copy of ``--home`` (the first run of new code writes its index
files there); a home without a ranker answers with the hand-set hybrid in every tree.

    HF_HUB_OFFLINE=1 python -m benchmarks.ask_bench --home .bifrost-demo --code /path/to/old --code . \\
        --questions eval/questions/osha-natural-dev.jsonl --limit 40 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.code_tree import tree_env

PROBE = """
import json, statistics, sys, time
from pathlib import Path
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
home, corpus, warm = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
questions = json.loads(sys.stdin.read())
bf = Bifrost(Settings(home=home))
try:
    for q in questions[:warm]:
        bf.ask(q, corpus=corpus)
    times = []
    for q in questions:
        t0 = time.perf_counter()
        bf.ask(q, corpus=corpus)
        times.append(time.perf_counter() - t0)
finally:
    bf.close()
print(json.dumps(times))
"""


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def read_questions(path: Path, limit: int) -> list[str]:
    """Question texts of a JSONL question file (its ``question`` field), at most ``limit``."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["question"] for r in rows][:limit]


def run_tree(code: Path, home: Path, corpus: str, questions: list[str], warm: int) -> list[float]:
    """Seconds of each timed ask in a new process over ``code``'s packages."""
    env = tree_env(code)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home), corpus, str(warm)],
        input=json.dumps(questions),
        env=env,
        capture_output=True,
        text=True,
        cwd=str(code.resolve()),
    )
    if done.returncode != 0:
        raise SystemExit(f"{code}: the ask probe exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summarize(per_tree: dict[str, list[list[float]]]) -> dict[str, dict[str, float]]:
    """p50 and p95 in ms per tree (median over rounds) and each p50 as a ratio to the first tree's."""
    out: dict[str, dict[str, float]] = {}
    for name, rounds in per_tree.items():
        out[name] = {
            "p50_ms": round(1000 * statistics.median(percentile(r, 0.5) for r in rounds), 1),
            "p95_ms": round(1000 * statistics.median(percentile(r, 0.95) for r in rounds), 1),
        }
    first = next(iter(out.values()))["p50_ms"] if out else 0.0
    for row in out.values():
        row["ratio_to_first"] = round(row["p50_ms"] / first, 3) if first else 0.0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--home",
        type=Path,
        action="append",
        required=True,
        help="BIFROST_HOME with the corpus built (copied per tree); one per --code to give each tree its own "
        "(a tree from before a schema change cannot open a newer home)",
    )
    ap.add_argument(
        "--code",
        type=Path,
        action="append",
        required=True,
        help="A code tree (repeatable; the first is the baseline)",
    )
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--questions", type=Path, default=Path("eval/questions/osha-natural-dev.jsonl"))
    ap.add_argument("--limit", type=int, default=40, help="At most this many timed questions")
    ap.add_argument("--warm", type=int, default=3, help="Questions asked untimed first")
    ap.add_argument("--rounds", type=int, default=2, help="Interleaved rounds per tree")
    args = ap.parse_args()
    questions = read_questions(args.questions, args.limit)
    per_tree: dict[str, list[list[float]]] = {str(c): [] for c in args.code}
    with tempfile.TemporaryDirectory(prefix="ask-bench-") as tmp:
        if len(args.home) not in (1, len(args.code)):
            raise SystemExit("give one --home, or one per --code")
        sources = args.home if len(args.home) == len(args.code) else args.home * len(args.code)
        homes = {str(c): Path(tmp) / f"home-{n}" for n, c in enumerate(args.code)}
        for source, home in zip(sources, homes.values()):
            shutil.copytree(source, home)
        for _ in range(args.rounds):
            for code in args.code:
                per_tree[str(code)].append(
                    run_tree(code, homes[str(code)], args.corpus, questions, args.warm)
                )
    print(
        json.dumps(
            {"questions": len(questions), "rounds": args.rounds, "trees": summarize(per_tree)}, indent=2
        )
    )


if __name__ == "__main__":
    main()
