"""The disk filling up: the home lives on a tmpfs a few MB larger than the home (root only: CI runs as root;
the home holds the encoder's ONNX export, about 90 MB) with the space taken: `ingest` and `build entities`
fail with one line naming the database file, the previous state is intact, and once space is freed the same
commands complete like a clean build."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.faults.harness import (
    copy_home,
    error_line,
    free_bytes,
    graph_stats,
    is_root,
    ok,
    run_cli,
    sql_counts,
    tmpfs,
)

pytestmark = pytest.mark.faults


@pytest.fixture
def small_disk(tmp_path, mini_home):
    if not is_root():
        if os.environ.get("CI") == "true":
            pytest.fail("the disk-full test mounts a tmpfs and needs root; CI runs as root")
        pytest.skip("mounting a size-limited tmpfs needs root (CI runs as root)")
    home_mb = sum(p.stat().st_size for p in mini_home.rglob("*") if p.is_file()) // 2**20
    with tmpfs(tmp_path / "disk", f"{home_mb + 24}m") as disk:
        yield disk


def fill(disk, leave: int) -> None:
    with open(disk / "filler", "wb") as f:
        f.truncate(0)
        os.posix_fallocate(f.fileno(), 0, max(free_bytes(disk) - leave, 1))


@pytest.mark.parametrize("leave", [0, 150_000], ids=["no space left", "150 kB left"])
def test_a_full_disk_fails_in_one_line_keeps_the_home_and_a_rerun_after_freeing_space_completes(
    leave, small_disk, mini_home, osha_ingested, osha_slice
):
    home = copy_home(mini_home, small_disk / "home")
    before, stats = sql_counts(home), graph_stats(home, "mini")
    fill(small_disk, leave)
    line = error_line(run_cli(home, "ingest", str(osha_slice), "--corpus", "osha-1926", "--no-graph"))
    assert str(home / "bifrost.db") in line and "free some space" in line, line
    # nothing changed in mini: the incremental entity build has nothing to write and completes when the
    # database can be opened; with no byte left even opening it fails, in one line
    done = run_cli(home, "build", "entities", "--corpus", "mini", "--extractor", "offline")
    if done.returncode:
        line = error_line(done)
        assert str(home / "bifrost.db") in line and "free some space" in line, line
    (small_disk / "filler").unlink()
    after = sql_counts(home)  # nothing lost; a failed ingest may have registered the (empty) new corpus name
    assert {t: n for t, n in after.items() if t != "corpora"} == {
        t: n for t, n in before.items() if t != "corpora"
    }
    assert graph_stats(home, "mini") == stats
    ok(run_cli(home, "ingest", str(osha_slice), "--corpus", "osha-1926", "--no-graph"))
    assert sql_counts(home) == sql_counts(osha_ingested)
    shutil.rmtree(home)
