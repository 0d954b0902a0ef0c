"""kill -9 in the middle of applying an edition: the previous edition stays whole, a rerun finishes.

`bifrost ingest` of Part 1926 edition B (made by `tests.editions_fixture`) runs as a real process
over a home holding edition A and gets a real SIGKILL at several points of its run (parsing,
writing). After each kill the home still holds exactly edition A; the final rerun records
edition B with the same provisions as a clean ingest of B into a fresh home.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bifrost.core.store.sql_store import SqlStore
from tests.conftest import ROOT, subprocess_env
from tests.editions_fixture import OSHA_1926_PLAN, make_edition_b

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
CORPUS = "osha-1926"
KILL_AT = (0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.97)  # fractions of an unkilled run's duration; dense, since a
# build's commit can come well before its end (indexes are written after it), and at least 3 kills must land


def bifrost(home: Path, *args: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "bifrost.app.cli.app", *args]
    env = {**subprocess_env(), "BIFROST_HOME": str(home)}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def ingest(home: Path, source: Path, date: str, graph: bool = False) -> subprocess.Popen:
    return bifrost(
        home,
        "ingest",
        str(source),
        "--corpus",
        CORPUS,
        "--graph" if graph else "--no-graph",
        "--no-index",  # the kills land in the edition's write and the graph's build, as before
        "--edition-date",
        date,
    )


def state(home: Path) -> tuple[list[int], dict[str, str]]:
    """Edition numbers and every current provision's version hash."""
    sql = SqlStore(f"sqlite:///{home / 'bifrost.db'}")
    try:
        return [e.number for e in sql.editions(CORPUS)], {
            p.id: p.version_hash for p in sql.provisions(CORPUS)
        }
    finally:
        sql.dispose()


def finish(proc: subprocess.Popen) -> None:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]


def edition_b(shared_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    a = shared_dir / "corpora" / CORPUS / "part-1926.json"
    (tmp_path / "b").mkdir()
    b = tmp_path / "b" / a.name
    b.write_text(json.dumps(make_edition_b(json.loads(a.read_text()), OSHA_1926_PLAN)))
    return a, b


def graph_state(home: Path) -> tuple[set[str], set]:
    """Section ids and HAS + REFERS_TO edges of the embedded graph store."""
    from bifrost.core.graph.embedded import EmbeddedGraphStore
    from bifrost.core.types import EdgeType

    sql = SqlStore(f"sqlite:///{home / 'bifrost.db'}")
    try:
        g = EmbeddedGraphStore(sql)
        return g.node_uids(CORPUS, "Section"), set(g.edges(CORPUS, EdgeType.HAS)) | set(
            g.edges(CORPUS, EdgeType.REFERS_TO)
        )
    finally:
        sql.dispose()


def kill_repeatedly(
    start: Callable[[], subprocess.Popen],
    duration: float,
    read: Callable[[], object],
    before: object,
    after: object,
) -> int:
    """Start a command and SIGKILL it at each of `KILL_AT` of ``duration``; after every kill the state
    must be exactly ``before`` or ``after`` (stop once it is ``after``). Returns how many kills landed."""
    killed = 0
    for fraction in KILL_AT:
        proc = start()
        time.sleep(duration * fraction)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            killed += 1
        proc.wait(timeout=60)
        now = read()
        assert now == before or now == after, f"mixed state after a kill at {fraction:.0%}"
        if now == after:  # the kill came after the commit: nothing left to kill
            break
    return killed


def test_a_killed_edition_leaves_the_previous_one_whole_and_a_rerun_completes(shared_dir, tmp_path):
    a, b = edition_b(shared_dir, tmp_path)

    clean = tmp_path / "clean"
    finish(ingest(clean, b, "2026-01-01"))
    home = tmp_path / "home"
    started = time.monotonic()
    finish(ingest(home, a, "2025-01-01"))
    duration = time.monotonic() - started
    edition_a = state(home)
    assert edition_a[0] == [1]

    whole_b = ([1, 2], state(clean)[1])
    assert (
        kill_repeatedly(
            lambda: ingest(home, b, "2026-01-01"), duration, lambda: state(home), edition_a, whole_b
        )
        >= 3
    )
    finish(ingest(home, b, "2026-01-01"))
    assert state(home) == whole_b


def test_a_killed_navigator_update_leaves_the_previous_graph_whole(shared_dir, tmp_path):
    """The navigator sync writes in one transaction (`GraphStore.atomic`): a kill keeps the old graph."""
    a, b = edition_b(shared_dir, tmp_path)
    home = tmp_path / "home"
    finish(ingest(home, a, "2025-01-01", graph=True))
    graph_a = graph_state(home)
    finish(ingest(home, b, "2026-01-01"))  # edition B in SQL; the graph still shows A
    probe = tmp_path / "probe"
    shutil.copytree(home, probe)
    started = time.monotonic()
    finish(bifrost(probe, "build", "navigator", "--corpus", CORPUS))
    duration = time.monotonic() - started
    graph_b = graph_state(probe)
    assert graph_a != graph_b
    start = lambda: bifrost(home, "build", "navigator", "--corpus", CORPUS)  # noqa: E731
    assert kill_repeatedly(start, duration, lambda: graph_state(home), graph_a, graph_b) >= 3
    finish(bifrost(home, "build", "navigator", "--corpus", CORPUS))
    assert graph_state(home) == graph_b
    check = bifrost(home, "graph", "check", "--corpus", CORPUS)
    finish(check)
