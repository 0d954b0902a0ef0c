"""`bifrost graph stats` says in one line when a corpus has no rulebook words of its own (the answer plan
then reads exceptions and authorities by generic English words), and how many precedents it has (one line
saying none are loaded when there are none)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.unit.mini_corpus import built_mini_home


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return built_mini_home(tmp_path_factory.mktemp("stats"))


def test_a_corpus_without_rulebook_words_gets_a_one_line_note(home):
    done = CliRunner().invoke(app, ["--home", str(home), "graph", "stats", "--corpus", "mini"])
    assert done.exit_code == 0, done.output
    notes = [line for line in done.output.splitlines() if line.startswith("note:")]
    assert (
        len(notes) == 3
        and "no precedents loaded" in notes[0]
        and "'mini' has no rulebook words of its own" in notes[2]
    )
    assert "requirement records" in notes[1] and "rule sentences without a requirement" in notes[1]
    as_json = CliRunner().invoke(app, ["--home", str(home), "graph", "stats", "--corpus", "mini", "--json"])
    assert len(json.loads(as_json.output)["notes"]) == 3


def test_stats_count_the_precedents_and_their_citations_outside_the_corpus(home, tmp_path):
    letters = tmp_path / "letters.jsonl"
    letters.write_text(
        json.dumps({"id": "l1", "title": "Plans", "cites": ["1926.502(b)(1)", "1910.28"]}) + "\n"
    )
    with Bifrost(Settings(home=home)) as bf:
        bf.import_precedents(letters, "mini")
        notes = bf.stats("mini").notes
    assert notes[0] == "1 precedents citing 1 provisions of the corpus (1 citations outside it)"


def test_the_note_comes_from_the_public_api(home):
    with Bifrost(Settings(home=home)) as bf:
        assert bf.stats("mini").notes and bf.stats("mini").nodes_by_kind
