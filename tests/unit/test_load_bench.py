"""benchmarks/load_bench.py: the load is bounded by count and time, and the home is copied, not used."""

from __future__ import annotations

import importlib.util
import sqlite3
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("load_bench", ROOT / "benchmarks" / "load_bench.py")
load_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(load_bench)


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
