"""`bifrost precedents import/list`, `bifrost ask` showing similar answered questions, and `bifrost review
answer/answers/export` on the mini corpus, through the command line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from tests.unit.mini_corpus import built_mini_home

LETTERS = [
    {
        "id": "loi-plan",
        "title": "Who may prepare a fall protection plan for leading edge work",
        "date": "1999-01-02",
        "url": "https://example.org/loi-plan",
        "cites": ["1926.502(b)(1)", "1910.28"],
    },
    {
        "id": "loi-edge",
        "title": "Guardrails for employees constructing a leading edge",
        "cites": ["1926.501(b)(2)"],
    },
]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return built_mini_home(tmp_path_factory.mktemp("precedents"))


def run(home, *args):
    return CliRunner().invoke(app, ["--home", str(home), *args])


@pytest.fixture(scope="module")
def imported(home, tmp_path_factory):
    path = tmp_path_factory.mktemp("letters") / "letters.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in LETTERS) + "\n{bad\n", encoding="utf-8")
    done = run(home, "precedents", "import", str(path), "--corpus", "mini", "--issuer", "OSHA")
    return done, path


def test_import_reports_counts_and_names_the_bad_line(imported):
    done, _path = imported
    assert done.exit_code == 0, done.output
    assert "2 added, 0 updated, 0 unchanged; 2 citations resolved, 1 outside the corpus" in done.output
    assert "skipped: letters.jsonl, line 3: not JSON" in done.output


def test_importing_again_changes_nothing(home, imported):
    again = run(
        home, "precedents", "import", str(imported[1]), "--corpus", "mini", "--issuer", "OSHA", "--json"
    )
    assert json.loads(again.stdout)["unchanged"] == 2


def test_list_shows_each_precedent_with_what_it_cites(home, imported):
    done = run(home, "precedents", "list", "--corpus", "mini")
    assert "loi-plan" in done.output and "1910.28 (outside)" in done.output


def test_ask_shows_the_similar_answered_question_as_an_interpretation(home, imported):
    done = run(
        home, "ask", "Who must prepare the fall protection plan for leading edge work?", "--corpus", "mini"
    )
    assert done.exit_code == 0, done.output
    assert "OSHA answered a similar question (interpretations, not the rule)" in done.output
    assert "Who may prepare a fall protection plan for leading edge work" in done.output


def test_a_review_becomes_a_precedent_and_a_question_set(home, imported, tmp_path):
    asked = json.loads(
        run(home, "ask", "Who must prepare the fall protection plan?", "--corpus", "mini", "--json").stdout
    )
    cited = [c["id"] for c in asked["citations"]]
    done = run(
        home,
        "review",
        "answer",
        "Who must prepare the fall protection plan?",
        "--corpus",
        "mini",
        "--reviewer",
        "ana",
        "--team",
        "Safety",
        "--right",
        cited[0],
        "--add",
        "1926.500(b)[Leading edge]",
    )
    assert done.exit_code == 0, done.output
    assert f"precedent review-1 cites {cited[0]}, 1926.500(b)[Leading edge]" in done.output
    listed = run(home, "review", "answers", "--corpus", "mini")
    assert "#1" in listed.output and "ana" in listed.output
    out = tmp_path / "reviewed.jsonl"
    assert run(home, "review", "export", str(out), "--corpus", "mini").exit_code == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["gold"] == [cited[0], "1926.500(b)[Leading edge]"]
    bank = json.loads(run(home, "precedents", "list", "--corpus", "mini", "--json").stdout)
    assert {"review-1", "loi-plan"} <= {p["id"] for p in bank}


def test_a_bad_review_is_one_line_and_stores_nothing(home, imported):
    done = run(
        home,
        "review",
        "answer",
        "Who must prepare the fall protection plan?",
        "--corpus",
        "mini",
        "--reviewer",
        "ana",
        "--add",
        "1926.999(z)",
    )
    assert done.exit_code == 1 and "1926.999(z) is not a provision of the current edition" in done.output
