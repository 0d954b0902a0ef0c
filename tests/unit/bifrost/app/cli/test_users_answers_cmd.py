"""`bifrost users` and `bifrost answers` through the command line: a token printed once and never listed,
one-line errors that create nothing, `ask` on the record, and `answers replay` telling what an amended
edition changed in a recorded answer."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.editions_fixture import MINI_PLAN, make_edition_b
from tests.unit.mini_corpus import MINI

PLAN = "Who shall prepare the fall protection plan?"


def run(home, *args):
    return CliRunner().invoke(app, ["--home", str(home), *args])


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """The mini corpus as edition A (2024-01-01) only; edition B is ingested by the replay test."""
    root = tmp_path_factory.mktemp("users-cli")
    bf = Bifrost(Settings(home=root / "home"))
    assert bf.ingest("mini", [MINI], date="2024-01-01").files_ok
    bf.build_navigator("mini")
    bf.build_entities("mini", "offline")
    bf.close()
    return root / "home"


def test_users_add_prints_the_token_once_and_list_never_shows_it(home):
    done = run(home, "users", "add", "rita", "--role", "reviewer", "--corpus", "mini", "--json")
    assert done.exit_code == 0, done.output
    token = json.loads(done.stdout)["secret"]
    listed = run(home, "users", "list", "--json")
    assert (
        listed.exit_code == 0 and token not in listed.stdout and token.split("_", 2)[2] not in listed.stdout
    )
    assert json.loads(listed.stdout)[0]["role"] == "reviewer"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["users", "add", "bob", "--role", "boss"], "unknown role 'boss'"),
        (["users", "add", "bob", "--corpus", "nope"], "unknown corpus 'nope'"),
        (["users", "revoke", "nobody"], "unknown user 'nobody'"),
    ],
)
def test_bad_users_commands_are_one_line_and_create_nothing(home, args, says):
    done = run(home, *args)
    assert done.exit_code != 0 and says in done.output
    assert len([ln for ln in done.output.splitlines() if ln.strip()]) == 1
    assert "bob" not in run(home, "users", "list").stdout


def test_revoke_ends_a_users_tokens(home):
    token = json.loads(run(home, "users", "add", "tim", "--json").stdout)["secret"]
    assert "1 token revoked" in run(home, "users", "revoke", "tim").stdout
    bf = Bifrost(Settings(home=home))
    try:
        assert not any(t.revoked_at is None for t in bf.users.get("tim").tokens)
        from bifrost.core.access import Unauthenticated

        with pytest.raises(Unauthenticated):
            bf.users.authenticate(token)
    finally:
        bf.close()


def test_ask_puts_the_answer_on_the_record_and_answers_show_it(home):
    done = run(home, "ask", PLAN, "--corpus", "mini", "--json")
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)
    listed = json.loads(run(home, "answers", "list", "--json").stdout)
    assert listed[0]["id"] == answer["record_id"] and listed[0]["channel"] == "cli"
    shown = json.loads(run(home, "answers", "show", answer["record_id"], "--json").stdout)
    assert shown["citations"] == [c["id"] for c in answer["citations"]]
    assert shown["editions"] == {"mini": 1}


def test_replay_on_an_amended_edition_reports_the_changed_citation(home, tmp_path):
    record_id = json.loads(run(home, "ask", PLAN, "--corpus", "mini", "--json").stdout)["record_id"]
    b = tmp_path / "part-mini.json"
    b.write_text(json.dumps(make_edition_b(json.loads(MINI.read_text()), MINI_PLAN)))
    bf = Bifrost(Settings(home=home))
    try:
        assert bf.ingest("mini", [b], date="2025-01-01").edition.number == 2
        bf.build_navigator("mini")
    finally:
        bf.close()
    done = run(home, "answers", "replay", record_id, "--json")
    assert done.exit_code == 0, done.output
    replay = json.loads(done.stdout)
    # the same edition quotes the same words; it may rank differently, being no longer the current one (it
    # says so)
    assert not any(c["change"] == "text changed" for c in replay["changes_same_edition"])
    assert "edition 1" in replay["same_edition_note"]
    moved = {c["id"]: c["change"] for c in replay["changes_current"] if c["change"] != "unchanged"}
    assert replay["changed"] and replay["current_editions"] == {"mini": 2}
    # reserved; amended
    assert moved["1926.502(b)(1)"] == "removed" and moved["1926.501(b)(2)(ii)"] == "text changed"
    text = run(home, "answers", "replay", record_id).stdout
    assert "changed since the record" in text and "1926.502(b)(1) removed" in text
