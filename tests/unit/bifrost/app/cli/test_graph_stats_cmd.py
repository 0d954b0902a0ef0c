"""`bifrost graph stats` says in one line when a corpus has no rulebook words of its own (the answer plan
then reads exceptions and authorities by generic English words); a known rulebook gets no such note."""

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
    assert len(notes) == 1 and "'mini' has no rulebook words of its own" in notes[0]
    as_json = CliRunner().invoke(app, ["--home", str(home), "graph", "stats", "--corpus", "mini", "--json"])
    assert len(json.loads(as_json.output)["notes"]) == 1


def test_the_note_comes_from_the_public_api(home):
    with Bifrost(Settings(home=home)) as bf:
        assert bf.stats("mini").notes and bf.stats("mini").nodes_by_kind
