"""Fixtures of the fault tests: small corpora, homes built once by the real CLI (the clean builds
every faulted run is compared with), and a Neo4j of their own that the tests may kill.

Every home is built by the same commands a user types, in a fresh folder: those are the clean
builds. A test copies one, breaks a run on the copy, reruns, and compares counts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.faults.harness import ok, run_cli
from tests.openai_stub import closed_port
from tests.unit.mini_corpus import MINI

LAUNCHER = ROOT / "docker" / "neo4j-launcher"
# scaffolds and fall protection: 800 provisions, ingested in about a second
SUBPARTS = ("Subpart L—", "Subpart M—")


def clean_build(tmp_path_factory: pytest.TempPathFactory, name: str, start: Path, *args: str) -> Path:
    """A fresh home holding a copy of ``start``, after one real `bifrost <args>` on it."""
    home = tmp_path_factory.mktemp(name) / "home"
    shutil.copytree(start, home)
    ok(run_cli(home, *args))
    return home


@pytest.fixture(scope="session")
def osha_slice(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Subparts L and M of 29 CFR 1926 from the shared part file, as an ingestible JSON file."""
    sections = json.loads((shared_dir / "corpora" / "osha-1926" / "part-1926.json").read_text())
    chosen = [s for s in sections if any(sp in s["path"] for sp in SUBPARTS)]
    assert len(chosen) >= 9
    path = tmp_path_factory.mktemp("osha-slice") / "part-1926-lm.json"
    path.write_text(json.dumps(chosen))
    return path


@pytest.fixture(scope="session")
def mini_navigated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Clean: the mini corpus ingested with its navigator graph, no entity network yet."""
    home = tmp_path_factory.mktemp("clean-mini-nav") / "home"
    ok(run_cli(home, "ingest", str(MINI), "--corpus", "mini"))
    return home


@pytest.fixture(scope="session")
def mini_home(mini_navigated: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Clean build of the mini corpus: ingest, navigator, offline entity network (the CLI, in a fresh
    home)."""
    return clean_build(
        tmp_path_factory,
        "clean-mini",
        mini_navigated,
        "build",
        "entities",
        "--corpus",
        "mini",
        "--extractor",
        "offline",
    )


@pytest.fixture(scope="session")
def osha_ingested(mini_home: Path, osha_slice: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Clean: the mini home, then the OSHA slice ingested (no navigator graph yet)."""
    return clean_build(
        tmp_path_factory,
        "clean-osha-ingested",
        mini_home,
        "ingest",
        str(osha_slice),
        "--corpus",
        "osha-1926",
        "--no-graph",
    )


@pytest.fixture(scope="session")
def osha_part(shared_dir: Path) -> Path:
    """The whole shared part file of 29 CFR 1926 (721 sections): its ingest writes about 6 MB of
    write-ahead log over half a second, long enough to be caught mid-write."""
    return shared_dir / "corpora" / "osha-1926" / "part-1926.json"


@pytest.fixture(scope="session")
def osha_part_ingested(mini_home: Path, osha_part: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Clean: the mini home, then the whole OSHA part ingested (no navigator graph)."""
    return clean_build(
        tmp_path_factory,
        "clean-osha-part-ingested",
        mini_home,
        "ingest",
        str(osha_part),
        "--corpus",
        "osha-1926",
        "--no-graph",
    )


@pytest.fixture(scope="session")
def osha_part_navigated(osha_part_ingested: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Clean: `osha_part_ingested`, then the whole part's navigator graph built (about 10 MB of log over 3
    s)."""
    return clean_build(
        tmp_path_factory,
        "clean-osha-part-nav",
        osha_part_ingested,
        "build",
        "navigator",
        "--corpus",
        "osha-1926",
    )


@pytest.fixture(scope="session")
def osha_navigated(osha_ingested: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Clean: `osha_ingested`, then the OSHA slice's navigator graph built."""
    return clean_build(
        tmp_path_factory, "clean-osha-nav", osha_ingested, "build", "navigator", "--corpus", "osha-1926"
    )


class Neo4jInstance:
    """A Neo4j of the fault tests (the dev launcher on free ports, data in its own folder)."""

    def __init__(self, run_dir: Path) -> None:
        self.bolt, self.http = closed_port(), closed_port()
        while self.http == self.bolt:
            self.http = closed_port()
        self.run_dir = run_dir
        self._driver = None
        self.uri = f"bolt://127.0.0.1:{self.bolt}"
        self.env = {
            **os.environ,
            "BIFROST_NEO4J_BOLT_PORT": str(self.bolt),
            "BIFROST_NEO4J_HTTP_PORT": str(self.http),
            "BIFROST_NEO4J_RUN": str(run_dir),
            "BIFROST_NEO4J_JAVA_OPTS": "-Xms128m -Xmx512m",
            "BIFROST_NEO4J_PAGECACHE_MB": "64",
            "PYTHON": os.environ.get("PYTHON", _python()),
            "BIFROST_NEO4J_STOP_TIMEOUT": "60",
        }

    @property
    def app_env(self) -> dict[str, str]:
        """What a CLI child needs to reach this server."""
        return {"BIFROST_NEO4J_URI": self.uri, "BIFROST_NEO4J_PASSWORD": "", "NEO4J_AUTH": "none"}

    @property
    def pid(self) -> int:
        return int((self.run_dir / "neo4j.pid").read_text())

    def nodes(self, corpus: str) -> int:
        """Nodes of a corpus in this server (0 when it does not answer)."""
        from neo4j import GraphDatabase
        from neo4j.exceptions import DriverError, Neo4jError

        try:
            if self._driver is None:
                self._driver = GraphDatabase.driver(self.uri, auth=None, connection_timeout=2)
            records, _, _ = self._driver.execute_query(
                "MATCH (n {corpus: $c}) RETURN count(n) AS n", c=corpus
            )
            return int(records[0]["n"])
        except (DriverError, Neo4jError, OSError):
            self.close_driver()
            return 0

    def close_driver(self) -> None:
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    def drop(self, corpus: str) -> None:
        """Remove a corpus from this server, so that a test sees its export arrive."""
        from neo4j import GraphDatabase

        with GraphDatabase.driver(self.uri, auth=None) as d:
            d.execute_query("MATCH (n {corpus: $c}) DETACH DELETE n", c=corpus)

    def killed(self, pid: int) -> None:
        """After a SIGKILL: wait until the JVM is gone; a zombie nobody reaps (a container's init may
        not) still answers `kill -0`, so its pid file is removed for start.sh."""
        stat = Path(f"/proc/{pid}/stat")
        for _ in range(600):
            if not stat.exists() or stat.read_text().split(")")[-1].split()[0] == "Z":
                break
            time.sleep(0.05)
        (self.run_dir / "neo4j.pid").unlink(missing_ok=True)

    def start(self) -> None:
        done = subprocess.run(
            ["bash", str(LAUNCHER / "start.sh")],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=400,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def stop(self) -> None:
        self.close_driver()
        subprocess.run(
            ["bash", str(LAUNCHER / "stop.sh")],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def _python() -> str:
    import sys

    return sys.executable


@pytest.fixture(scope="session")
def neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jInstance]:
    """Our own Neo4j, started for the fault tests (they kill and restart it); needs Java and Maven
    (a visible skip without them, a failure when CI=true)."""
    if not (shutil.which("java") and shutil.which("mvn")):
        if os.environ.get("CI") == "true":
            pytest.fail("the fault tests need Java and Maven for their own Neo4j, and CI=true")
        pytest.skip("no Java/Maven: the fault tests cannot start their own Neo4j")
    server = Neo4jInstance(tmp_path_factory.mktemp("neo4j-faults"))
    server.start()
    try:
        yield server
    finally:
        server.stop()
