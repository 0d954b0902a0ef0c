"""Neo4j killed for real (SIGKILL of the launcher's JVM) in the middle of `bifrost export neo4j`,
then started again: the export fails with one line, a rerun completes with the counts of a clean
export; and what was written before a stop is still there after a start.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from tests.faults.harness import copy_home, error_line, graph_stats, ok, run_cli, sql_counts

pytestmark = [pytest.mark.faults, pytest.mark.neo4j, pytest.mark.timeout(600)]


def test_neo4j_killed_mid_export_fails_in_one_line_and_a_rerun_after_restart_equals_a_clean_export(
    osha_navigated, neo4j, tmp_path
):
    home = copy_home(osha_navigated, tmp_path / "home")
    before = sql_counts(home)
    neo4j.drop("osha-1926")
    killed = threading.Event()

    def kill_when_half_written() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and neo4j.nodes("osha-1926") < 300:
            time.sleep(0.01)
        pid = neo4j.pid
        os.kill(pid, signal.SIGKILL)
        neo4j.killed(pid)
        killed.set()

    killer = threading.Thread(target=kill_when_half_written, daemon=True)
    killer.start()
    done = run_cli(home, "export", "neo4j", "--corpus", "osha-1926", env=neo4j.app_env)
    killer.join(timeout=130)
    assert killed.is_set()
    line = error_line(done)
    assert "Neo4j" in line, line
    neo4j.close_driver()
    neo4j.start()  # same data folder, same ports
    ok(run_cli(home, "export", "neo4j", "--corpus", "osha-1926", env=neo4j.app_env))
    assert graph_stats(home, "osha-1926", env=neo4j.app_env, store="neo4j") == graph_stats(
        osha_navigated, "osha-1926"
    )
    assert sql_counts(home) == before


def test_an_export_survives_a_neo4j_stop_and_start(mini_home, neo4j, tmp_path):
    home = copy_home(mini_home, tmp_path / "home")
    ok(run_cli(home, "export", "neo4j", "--corpus", "mini", env=neo4j.app_env))
    written = graph_stats(home, "mini", env=neo4j.app_env, store="neo4j")
    assert written == graph_stats(mini_home, "mini") and written["entities"] > 0
    neo4j.stop()  # clean shutdown (SIGTERM)
    down = run_cli(home, "--store", "neo4j", "graph", "stats", "--corpus", "mini", env=neo4j.app_env)
    assert "Neo4j" in error_line(down)
    neo4j.start()
    assert graph_stats(home, "mini", env=neo4j.app_env, store="neo4j") == written
