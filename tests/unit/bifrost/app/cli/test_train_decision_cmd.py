"""`bifrost train decision` on the mini corpus: one-line errors when no ranker is stored, when validation
has no set left to fit a nested ranker on, and when nothing is left to do; with three sets, each left out is
scored (fitting and asking on the OSHA home: tests/integration/test_train_decision.py)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from tests.conftest import FIXTURES, import_or_skip
from tests.unit.mini_corpus import built_mini_home

import_or_skip("lightgbm", "ltr")
QUESTIONS = FIXTURES / "mini" / "questions-mini.jsonl"


def run(home, *args):
    return CliRunner().invoke(app, ["--home", str(home), *args])


@pytest.fixture(scope="module")
def mini_home(tmp_path_factory):
    """A mini home and its questions halved into two sets (no ranker yet)."""
    home = built_mini_home(tmp_path_factory.mktemp("decision"))
    lines = QUESTIONS.read_text().splitlines()
    sets = [home / "first.jsonl", home / "second.jsonl"]
    for i, path in enumerate(sets):
        path.write_text("\n".join(lines[i::2]) + "\n")
    return home, [a for s in sets for a in ("-q", str(s))]


def test_it_needs_a_stored_ranker_with_a_set_left_for_each_nested_fit(mini_home):
    home, sets = mini_home
    r = run(home, "train", "decision", "--corpus", "mini", *sets)
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert "no trained ranker for mini" in r.output and "bifrost train ranker" in r.output
    r = run(home, "train", "ranker", "--corpus", "mini", *sets, "--no-cv")
    assert r.exit_code == 0, r.output
    # each set left out is fitted on the other, itself ranked by a ranker without both: none is left
    r = run(home, "train", "decision", "--corpus", "mini", *sets, "--no-store")
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert "no set is left to fit a nested ranker on" in r.output


def test_no_validate_and_no_store_is_one_line_naming_both(mini_home):
    home, sets = mini_home
    r = run(home, "train", "decision", "--corpus", "mini", *sets, "--no-validate", "--no-store")
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert "--no-validate with --no-store" in r.output


def test_each_set_left_out_is_scored_with_the_decision_and_without(tmp_path):
    home = built_mini_home(tmp_path)
    lines = QUESTIONS.read_text().splitlines()
    sets = []
    for i in range(3):
        path = home / f"set{i}.jsonl"
        path.write_text("\n".join(lines[i::3]) + "\n")
        sets += ["-q", str(path)]
    assert run(home, "train", "ranker", "--corpus", "mini", *sets, "--no-cv").exit_code == 0
    r = run(home, "train", "decision", "--corpus", "mini", *sets, "--no-store", "-o", str(tmp_path / "out"))
    assert r.exit_code == 0, r.output
    table = (tmp_path / "out" / "summary.md").read_text()
    for name in ("set0", "set1", "set2"):
        assert f"| {name} |" in table
