"""The CLI ingests sources, builds the navigator graph, and reports bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from tests.conftest import FIXTURES

MINI = FIXTURES / "mini" / "part-mini.json"


def run(home: Path, *args: str):
    result = CliRunner().invoke(app, ["--home", str(home), *args])
    return result


def test_ingest_builds_the_navigator_graph_from_a_json_source(home):
    r = run(home, "ingest", str(MINI), "--corpus", "mini", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["ingest"]["files_ok"] == [MINI.name] or data["ingest"]["files_ok"]
    assert data["navigator"]["refers_to_edges"] >= 2
    show = json.loads(run(home, "graph", "show", "1926.501(b)(2)(i)", "--corpus", "mini", "--json").stdout)
    assert "1926.502(b)" in {r["id"] for r in show["references_out"]}


def test_ingest_writes_the_search_indexes_so_the_first_question_embeds_no_provision(home, monkeypatch):
    from bifrost.core.embeddings import SentenceTransformerEmbedder

    added = json.loads(run(home, "ingest", str(MINI), "--corpus", "mini", "--json").stdout)["ingest"]["added"]
    written = {p.name.split("-")[0] for p in (home / "index" / "mini").iterdir()}
    assert {"bm25", "dense", "sentences"} <= written
    encoded: list[int] = []
    real = SentenceTransformerEmbedder._encode
    monkeypatch.setattr(
        SentenceTransformerEmbedder,
        "_encode",
        lambda self, texts: encoded.append(len(texts)) or real(self, texts),
    )
    asked = run(
        home, "ask", "What must an employee constructing a leading edge be protected by?", "--corpus", "mini"
    )
    assert asked.exit_code == 0, asked.output
    # the question and the parts it is read into, never the corpus (its provisions were embedded by ingest)
    assert encoded and max(encoded) < min(added, 10), (encoded, added)


def test_no_index_leaves_the_indexes_to_the_first_question(home):
    assert run(home, "ingest", str(MINI), "--corpus", "mini", "--no-index").exit_code == 0
    assert not any((home / "index" / "mini").glob("dense-*.npy"))


def test_reingesting_the_same_input_changes_nothing(home):
    run(home, "ingest", str(MINI), "--corpus", "mini")
    again = json.loads(run(home, "ingest", str(MINI), "--corpus", "mini", "--json").stdout)
    assert again["ingest"]["added"] == 0 and again["ingest"]["updated"] == []
    assert again["ingest"]["unchanged"] > 0


def test_a_changed_provision_is_updated_and_reported(home, tmp_path):
    run(home, "ingest", str(MINI), "--corpus", "mini")
    changed = tmp_path / MINI.name
    changed.write_text(
        MINI.read_text().replace("prepared by a qualified person", "prepared by a competent person")
    )
    again = json.loads(run(home, "ingest", str(changed), "--corpus", "mini", "--json").stdout)
    assert again["ingest"]["updated"] == ["1926.502(b)(1)"]


def test_a_bad_file_is_reported_in_one_line_and_the_batch_continues(home, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    r = run(home, "ingest", str(bad), str(MINI), "--corpus", "mini")
    assert r.exit_code == 0
    errors = [line for line in r.stderr.splitlines() if "broken.json" in line]
    assert len(errors) == 1 and errors[0].startswith("error:")
    stats = json.loads(run(home, "graph", "stats", "--corpus", "mini", "--json").stdout)
    assert stats["nodes_by_kind"]["section"] == 3


def test_nothing_ingested_exits_non_zero_and_keeps_what_was_stored(home, tmp_path):
    run(home, "ingest", str(MINI), "--corpus", "mini")
    before = run(home, "graph", "stats", "--corpus", "mini", "--json").stdout
    empty = tmp_path / "empty.json"
    empty.write_text("")
    r = run(home, "ingest", str(empty), "--corpus", "mini")
    assert r.exit_code == 1
    assert "empty.json" in r.stderr
    assert run(home, "graph", "stats", "--corpus", "mini", "--json").stdout == before


def test_unknown_corpus_and_provision_get_one_line_errors(home):
    r = run(home, "graph", "stats", "--corpus", "nope")
    assert r.exit_code == 1 and "corpus 'nope' is not ingested" in r.stderr
    run(home, "ingest", str(MINI), "--corpus", "mini")
    r = run(home, "graph", "show", "1926.999", "--corpus", "mini")
    assert r.exit_code == 1 and "1926.999" in r.stderr


@pytest.mark.slow
def test_osha_1926_must_hold_references(home, shared_dir, monkeypatch):
    monkeypatch.setenv("BIFROST_SHARED_DIR", str(shared_dir))
    r = run(home, "ingest", "--corpus", "osha-1926", "--json", "--no-index")  # the references, not the index
    assert r.exit_code == 0, r.output

    def refs(pid: str) -> set[str]:
        out = run(home, "graph", "show", pid, "--corpus", "osha-1926", "--json")
        assert out.exit_code == 0, out.output
        return {x["id"] for x in json.loads(out.stdout)["references_out"]}

    assert "1926.502(b)(3)" in refs("1926.502(b)(15)")
    assert "1926.502(k)" in refs("1926.501(b)(2)(i)")
    assert {"1926.501(b)(2)", "1926.501(b)(12)", "1926.501(b)(13)"} <= refs("1926.502(k)")
    assert {"1926.451(b)(2)(i)", "1926.451(b)(2)(ii)"} <= refs("1926.451(b)(2)")
    stats = json.loads(run(home, "graph", "stats", "--corpus", "osha-1926", "--json").stdout)
    assert stats["nodes_by_kind"]["section"] >= 290
    assert stats["dangling_references"] > 0


def test_build_entities_with_lsh_search_gives_the_exact_network(home):
    run(home, "ingest", str(MINI), "--corpus", "mini")
    exact = json.loads(
        run(home, "build", "entities", "--corpus", "mini", "--search", "exact", "--json").stdout
    )
    lsh = json.loads(run(home, "build", "entities", "--corpus", "mini", "--search", "lsh", "--json").stdout)
    assert exact["entities"] > 10
    assert (lsh["entities"], lsh["relations"]) == (exact["entities"], exact["relations"])


def test_an_unknown_search_mode_is_refused_before_any_work(home):
    r = run(home, "build", "entities", "--corpus", "mini", "--search", "annoy")
    assert r.exit_code == 2
    assert "annoy" in r.output and "lsh" in r.output
