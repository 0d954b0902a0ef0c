"""benchmarks/load_bench.py: the load is bounded by count and time, and the home is copied, not used."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from benchmarks import load_bench

ROOT = Path(__file__).resolve().parents[2]


def test_the_budget_stops_at_the_request_limit_and_at_the_deadline():
    budget = load_bench.Budget(seconds=60, max_requests=3)
    assert [budget.take() for _ in range(5)] == [True, True, True, False, False]
    late = load_bench.Budget(seconds=0.01, max_requests=1000)
    time.sleep(0.02)
    assert late.take() is False


def test_copy_home_copies_the_database_and_files_and_leaves_the_source_alone(tmp_path):
    src, dst = tmp_path / "src", tmp_path / "dst"
    (src / "index").mkdir(parents=True)
    (src / "index" / "eng.npz").write_bytes(b"x")
    with sqlite3.connect(src / "bifrost.db") as c:
        c.execute("create table t (x)")
        c.execute("insert into t values (1)")
    before = (src / "bifrost.db").stat().st_mtime_ns
    load_bench.copy_home(src, dst)
    with sqlite3.connect(dst / "bifrost.db") as c:
        assert c.execute("select x from t").fetchall() == [(1,)]
    assert (dst / "index" / "eng.npz").read_bytes() == b"x"
    assert (src / "bifrost.db").stat().st_mtime_ns == before


def test_worker_counts_are_a_comma_list_of_counts_of_one_or_more():
    assert load_bench.worker_counts("1,4") == [1, 4]
    for bad in ("0,4", "-1", "four", ""):
        try:
            load_bench.worker_counts(bad)
        except load_bench.argparse.ArgumentTypeError as e:
            assert "--workers" in str(e)
        else:
            raise AssertionError(f"{bad!r} was accepted")


def test_the_memory_of_a_process_tree_counts_the_parent_and_its_children():
    import os
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in load_bench.process_tree(os.getpid())
        mine = load_bench.smaps_kb(os.getpid())
        assert 0 < mine["Pss"] <= mine["Rss"]
        tree = load_bench.tree_memory_mb(os.getpid())
        assert tree["processes"] >= 2
        assert tree["pss_mb"] <= tree["rss_mb"]
        assert tree["rss_mb"] * 1024 > mine["Rss"]  # the child's pages are counted too
    finally:
        child.kill()
        child.wait()
