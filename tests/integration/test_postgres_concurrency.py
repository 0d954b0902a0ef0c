"""Two real `bifrost ingest` processes writing one corpus into one PostgreSQL at the same time end
exactly as the same ingests run one after the other: provisions, references, navigator nodes and
edges, dangling count. (Writers of a corpus take turns: `SqlStore.writer_lock`; the empty database's
schema is created once: `schema.ensure_schema`.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import ROOT, subprocess_env
from tests.integration.postgres_env import fresh_database

pytestmark = pytest.mark.postgres

CORPUS = "concurrent-test"
PATH = "PART 1926—SAFETY AND HEALTH REGULATIONS FOR CONSTRUCTION\n > Subpart Z—Test"


def section(n: int, total: int) -> dict:
    """Section 1926.(600+n), whose paragraphs cite a section in the other half of the corpus."""
    other = 600 + (n + total // 2) % total
    return {
        "source": f"29 CFR 1926.{600 + n}",
        "title": f"§ 1926.{600 + n} Test section {n}.",
        "section": f"1926.{600 + n}",
        "content": (
            f"(a) General. (1) Each employer shall comply with § 1926.{other}(b)(1) for task {n}.\n"
            f"(b)(1) Guardrails for task {n} shall meet paragraph (a)(1) of this section.\n"
            f"(2) See § 1926.{other}(a) and § 1910.{n} (outside this part).\n"
        ),
        "path": PATH,
    }


@pytest.fixture(scope="module")
def halves(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("corpus")
    total = 80
    sections = [section(n, total) for n in range(total)]
    a, b = folder / "half-a.json", folder / "half-b.json"
    a.write_text(json.dumps(sections[: total // 2]))
    b.write_text(json.dumps(sections[total // 2 :]))
    return a, b


def start_ingest(url: str, home: Path, *files: Path) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "bifrost.app.cli.app",
        "--home",
        str(home),
        "ingest",
        *map(str, files),
        "--corpus",
        CORPUS,
        "--json",
    ]
    env = {**subprocess_env(), "BIFROST_DATABASE_URL": url}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen) -> None:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]


def snapshot(url: str) -> dict:
    """Everything an ingest leaves current, as comparable values (ids, not serial numbers; editions and
    history depend on which of two concurrent ingests committed first, so they are not compared)."""
    engine = create_engine(url)
    with engine.connect() as conn:
        q = lambda sql: sorted(
            (tuple(r) for r in conn.execute(text(sql))),
            key=lambda r: tuple("" if v is None else str(v) for v in r),
        )  # noqa: E731
        snap = {
            # content, not the version hash: a part or subpart both halves carry belongs to the document
            # that wrote it first, and its document order follows that document
            "provisions": q("SELECT uid, kind, heading, text, parent_id, level, reserved FROM provisions"),
            # the current references: which edition recorded each one depends on which ingest came first
            "references": q(
                'SELECT source_id, raw, target_id, reason FROM "references" WHERE valid_to IS NULL'
            ),
            "nodes": q("SELECT uid, label FROM graph_nodes"),
            "edges": q("SELECT type, source, target, key FROM graph_edges"),
            "documents": q("SELECT corpus, name, checksum FROM documents"),
            "corpora": q("SELECT name, jurisdiction FROM corpora"),
            # the entity network's generation is a random cache key (ingest writes the indexes, which take
            # one): that there is one is compared, not its value
            "meta": q(
                "SELECT corpus, key, CASE WHEN key = 'entity_network_generation' THEN 'a cache key' "
                "ELSE CAST(value AS TEXT) END FROM meta"
            ),
        }
    engine.dispose()
    return snap


def test_two_ingests_of_two_halves_at_once_end_as_a_serial_ingest(halves, tmp_path):
    a, b = halves
    with fresh_database() as together, fresh_database() as serial:
        procs = [start_ingest(together, tmp_path / "h1", a), start_ingest(together, tmp_path / "h2", b)]
        for p in procs:
            finish(p)
        finish(start_ingest(serial, tmp_path / "h3", a))
        finish(start_ingest(serial, tmp_path / "h4", b))
        got, want = snapshot(together), snapshot(serial)
    cross = [e for e in want["edges"] if e[0] == "REFERS_TO"]
    assert len(want["provisions"]) > 400 and len(cross) >= 80  # both halves, references across them
    assert got == want


def test_two_ingests_of_the_same_files_at_once_end_as_one_ingest(halves, tmp_path):
    with fresh_database() as together, fresh_database() as serial:
        procs = [
            start_ingest(together, tmp_path / "h1", *halves),
            start_ingest(together, tmp_path / "h2", *halves),
        ]
        for p in procs:
            finish(p)
        finish(start_ingest(serial, tmp_path / "h3", *halves))
        assert snapshot(together) == snapshot(serial)
