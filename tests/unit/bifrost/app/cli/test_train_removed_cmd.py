"""`bifrost train reader` was removed: an old script that still calls it gets one line saying so and what
replaces it, and a non-zero exit (never a silent no-op)."""

from __future__ import annotations

from typer.testing import CliRunner

from bifrost.app.cli.train_cmd import make_train_app


def test_train_reader_says_it_was_removed_and_names_what_replaces_it():
    r = CliRunner().invoke(
        make_train_app(), ["reader", "--corpus", "osha-1926", "-q", "x.jsonl", "--no-store"]
    )
    assert r.exit_code != 0
    said = r.output.strip()
    assert said.startswith("error: bifrost train reader was removed") and "bifrost train decision" in said
    assert len(said.splitlines()) == 1


def test_the_removed_command_is_not_listed_among_the_training_commands():
    listed = CliRunner().invoke(make_train_app(), ["--help"]).output
    assert "decision" in listed and "reader" not in listed
