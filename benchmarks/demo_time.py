"""Wall time of `make demo` (scripts/demo.sh) for one or more code trees, each on a fresh home, one after the
other in the same run: the total and each of its five stages, and each tree's ratio to the first.

Usage: python -m benchmarks.demo_time --code <before tree> --code . [--work /tmp/demo-time]
       [--shared ../shared]

Each tree runs its own scripts/demo.sh from its own folder, with its own packages (`benchmarks.code_tree`),
the command-line tool run by this checkout's Python. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.code_tree import tree_env

LAUNCHER = """#!/bin/sh
exec {python} -c 'import sys; sys.argv[0] = "bifrost"; from bifrost.app.cli.app import main; main()' "$@"
"""


def run_demo(code: Path, home: Path, shared: Path) -> dict[str, float]:
    """Seconds per stage ("== N/5" headings) and in total for the tree's demo on a fresh ``home``."""
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    launcher = home.parent / f"{home.name}-bifrost"
    launcher.write_text(LAUNCHER.format(python=sys.executable))
    launcher.chmod(0o755)
    env = {**tree_env(code), "BIFROST_HOME": str(home), "BIFROST_SHARED_DIR": str(shared)}
    stages: dict[str, float] = {}
    start = last = time.perf_counter()
    stage = "start"
    proc = subprocess.Popen(
        ["bash", "scripts/demo.sh", str(launcher)],
        cwd=code,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("== "):
            now = time.perf_counter()
            stages[stage] = round(now - last, 1)
            stage, last = line[3:6].strip(), now
    if proc.wait() != 0:
        raise SystemExit(f"{code}: the demo failed (exit {proc.returncode})")
    end = time.perf_counter()
    stages[stage] = round(end - last, 1)
    stages.pop("start", None)
    return {"total": round(end - start, 1), **stages}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", type=Path, action="append", required=True, help="a code tree (repeatable)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/demo-time"), help="where the fresh homes go")
    ap.add_argument("--shared", type=Path, default=Path("../shared"), help="the shared data folder")
    args = ap.parse_args(argv)
    shared = args.shared.resolve()
    out: dict[str, dict[str, float]] = {}
    for i, code in enumerate(args.code):
        out[str(code)] = run_demo(code.resolve(), args.work.resolve() / f"home-{i}", shared)
    first = out[str(args.code[0])]["total"]
    ratios = {name: round(t["total"] / first, 3) for name, t in out.items()}
    print(json.dumps({"seconds": out, "ratio_to_first": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
