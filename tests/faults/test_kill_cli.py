"""A real SIGKILL of the `bifrost` process at several points of `ingest`, `build navigator`,
`build entities` (offline), `export neo4j` and `eval`: afterwards the home is still readable and
keeps what it held before, the same command run again completes, and the counts in SQL (and in
Neo4j) equal a clean build in a fresh home.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.faults.harness import KillPoint, copy_home, graph_stats, kill_at, ok, run_cli, sql_counts
from tests.unit.mini_corpus import MINI

pytestmark = [pytest.mark.faults, pytest.mark.timeout(600)]

MODEL_LOADED = "loaded embedding model"
QUESTIONS = MINI.parent / "questions-mini.jsonl"

# Mid-write kills run on the whole part, whose write-ahead log grows for half a second (ingest, ~6 MB)
# or three (navigator, ~10 MB); the slice's is written in one burst of a few milliseconds, which a poll
# catches only by luck. Each case: the kill point, the input fixture, the clean build to compare with.
INGEST_CASES = [
    pytest.param(
        KillPoint("while starting", seconds=0.3), "osha_slice", "osha_ingested", id="while starting"
    ),
    pytest.param(
        KillPoint("at the first write", wal_bytes=1), "osha_slice", "osha_ingested", id="at the first write"
    ),
    pytest.param(
        KillPoint("mid-write", wal_bytes=1_000_000), "osha_part", "osha_part_ingested", id="mid-write"
    ),
]
NAVIGATOR_CASES = [
    pytest.param(
        KillPoint("at the first write", wal_bytes=1),
        "osha_ingested",
        "osha_navigated",
        id="at the first write",
    ),
    pytest.param(
        KillPoint("mid-write", wal_bytes=2_000_000),
        "osha_part_ingested",
        "osha_part_navigated",
        id="mid-write",
    ),
]


@pytest.mark.parametrize(("point", "source", "clean"), INGEST_CASES)
def test_a_killed_ingest_keeps_the_home_and_a_rerun_equals_a_clean_ingest(
    point, source, clean, mini_home, request, tmp_path
):
    part, clean_home = request.getfixturevalue(source), request.getfixturevalue(clean)
    home = copy_home(mini_home, tmp_path / "home")
    kill_at(home, point, "ingest", str(part), "--corpus", "osha-1926", "--no-graph")
    assert graph_stats(home, "mini") == graph_stats(mini_home, "mini")
    ok(run_cli(home, "ingest", str(part), "--corpus", "osha-1926", "--no-graph"))
    assert sql_counts(home) == sql_counts(clean_home)


@pytest.mark.parametrize(("point", "source", "clean"), NAVIGATOR_CASES)
def test_a_killed_navigator_build_keeps_the_home_and_a_rerun_equals_a_clean_build(
    point, source, clean, mini_home, request, tmp_path
):
    ingested, clean_home = request.getfixturevalue(source), request.getfixturevalue(clean)
    home = copy_home(ingested, tmp_path / "home")
    kill_at(home, point, "build", "navigator", "--corpus", "osha-1926")
    assert graph_stats(home, "mini") == graph_stats(mini_home, "mini")
    ok(run_cli(home, "build", "navigator", "--corpus", "osha-1926"))
    assert sql_counts(home) == sql_counts(clean_home)
    assert graph_stats(home, "osha-1926") == graph_stats(clean_home, "osha-1926")


@pytest.mark.parametrize(
    "point",
    [KillPoint("model loaded", line=MODEL_LOADED), KillPoint("writing the network", wal_bytes=1)],
    ids=str,
)
def test_a_killed_entity_build_keeps_the_home_readable_and_a_rerun_equals_a_clean_build(
    point, mini_navigated, mini_home, tmp_path
):
    home = copy_home(mini_navigated, tmp_path / "home")
    before = graph_stats(mini_home, "mini")
    kill_at(home, point, "build", "entities", "--corpus", "mini", "--extractor", "offline")
    after = graph_stats(home, "mini")  # readable; the navigator graph is untouched by an entity build
    assert after["nodes_by_kind"] == before["nodes_by_kind"]
    assert {k: v for k, v in after["edges_by_type"].items() if k in ("HAS", "REFERS_TO")} == {
        k: v for k, v in before["edges_by_type"].items() if k in ("HAS", "REFERS_TO")
    }
    ok(run_cli(home, "build", "entities", "--corpus", "mini", "--extractor", "offline"))
    assert sql_counts(home) == sql_counts(mini_home)
    assert graph_stats(home, "mini") == before


EXPORT_POINTS = [("mini", "at the first node written", 1), ("osha-1926", "mid-write", 300)]


@pytest.mark.neo4j
@pytest.mark.parametrize(("corpus", "name", "nodes"), EXPORT_POINTS, ids=lambda v: str(v))
def test_a_killed_export_leaves_neo4j_readable_and_a_rerun_equals_a_clean_export(
    corpus, name, nodes, osha_navigated, neo4j, tmp_path
):
    clean = osha_navigated  # holds both corpora, built clean
    home = copy_home(clean, tmp_path / "home")
    before = sql_counts(home)
    neo4j.drop(corpus)
    point = KillPoint(f"{name} ({nodes} nodes in Neo4j)", when=lambda: neo4j.nodes(corpus) >= nodes)
    kill_at(home, point, "export", "neo4j", "--corpus", corpus, env=neo4j.app_env)
    graph_stats(home, corpus, env=neo4j.app_env, store="neo4j")  # Neo4j still answers
    ok(run_cli(home, "export", "neo4j", "--corpus", corpus, env=neo4j.app_env))
    assert graph_stats(home, corpus, env=neo4j.app_env, store="neo4j") == graph_stats(clean, corpus)
    assert sql_counts(home) == before


def test_a_killed_eval_keeps_the_home_and_a_rerun_writes_the_clean_results(mini_home, tmp_path):
    args = ("eval", "--corpus", "mini", "--questions", str(QUESTIONS), "--systems", "bm25,dense")
    ok(run_cli(copy_home(mini_home, tmp_path / "clean-home"), *args, "--out", str(tmp_path / "clean")))
    home = copy_home(mini_home, tmp_path / "home")
    kill_at(home, KillPoint("model loaded", line=MODEL_LOADED), *args, "--out", str(tmp_path / "run"))
    assert sql_counts(home) == sql_counts(mini_home)
    ok(run_cli(home, *args, "--out", str(tmp_path / "run")))

    def scores(folder: Path) -> dict:  # every figure but the wall time
        systems = json.loads((folder / "metrics.json").read_text())["systems"]
        return {
            name: {k: v for k, v in s["metrics"].items() if k != "seconds"} for name, s in systems.items()
        }

    assert scores(tmp_path / "run") == scores(tmp_path / "clean")


@pytest.mark.parametrize("point", [KillPoint("writing the update", wal_bytes=1)], ids=str)
def test_a_killed_incremental_entity_update_keeps_the_home_readable_and_a_rerun_equals_a_clean_build_of_b(
    point, mini_home, tmp_path
):
    """Edition B of the mini part over A: the entity update re-extracts only what changed; killed while it
    writes, a rerun equals a clean build of B (graph stats, and `graph check` finds no difference)."""
    from tests.integration.test_editions import edition_b

    source = edition_b(tmp_path / "b")
    clean = tmp_path / "clean"
    for args in (
        ("ingest", str(source), "--corpus", "mini"),
        ("build", "entities", "--corpus", "mini", "--extractor", "offline"),
    ):
        ok(run_cli(clean, *args))
    home = copy_home(mini_home, tmp_path / "home")
    ok(run_cli(home, "ingest", str(source), "--corpus", "mini"))  # edition B in SQL and the navigator graph
    navigator = {
        k: v for k, v in graph_stats(home, "mini")["edges_by_type"].items() if k in ("HAS", "REFERS_TO")
    }
    kill_at(home, point, "build", "entities", "--corpus", "mini", "--extractor", "offline")
    after = graph_stats(home, "mini")  # readable, navigator untouched
    assert {k: v for k, v in after["edges_by_type"].items() if k in ("HAS", "REFERS_TO")} == navigator
    ok(run_cli(home, "build", "entities", "--corpus", "mini", "--extractor", "offline"))
    assert graph_stats(home, "mini") == graph_stats(clean, "mini")
    ok(run_cli(home, "graph", "check", "--corpus", "mini"))
