"""`FastExit`: each run of the command line has its own request to end without teardown; the entry
point's one reaches the command through the click context, and a run given none keeps its interpreter."""

from __future__ import annotations

import logging
import os

import pytest
import typer
from typer.testing import CliRunner

from bifrost.app.cli import fast_exit
from bifrost.app.cli.app import make_app
from bifrost.app.cli.fast_exit import FastExit


def app_with_probe() -> typer.Typer:
    """The real root command (its callback attaches the run's `FastExit`) plus a command that asks for a
    quick exit."""
    root = make_app()

    @root.command("probe")
    def probe(ctx: typer.Context) -> None:
        fast_exit.of(ctx).request()

    return root


def test_two_fast_exit_requests_are_independent():
    a, b = FastExit(), FastExit()
    a.request()
    assert a.requested and not b.requested


def test_the_run_given_a_fast_exit_is_the_one_whose_command_requests_it():
    app, runner = app_with_probe(), CliRunner()
    first, second = FastExit(), FastExit()
    assert runner.invoke(app, ["probe"], obj=first).exit_code == 0
    assert first.requested and not second.requested
    assert runner.invoke(app, ["probe"], obj=second).exit_code == 0
    assert second.requested


def test_a_run_given_none_requests_on_a_fast_exit_nobody_acts_on():
    assert CliRunner().invoke(app_with_probe(), ["probe"]).exit_code == 0


@pytest.fixture
def ended(monkeypatch) -> list[int]:
    """The codes `os._exit` was called with (the process goes on; logging is not shut down)."""
    codes: list[int] = []
    monkeypatch.setattr(os, "_exit", codes.append)
    monkeypatch.setattr(logging, "shutdown", lambda: None)
    return codes


def test_exit_if_requested_returns_unless_requested_then_ends_with_the_code(ended):
    quick = FastExit()
    quick.exit_if_requested(0)
    assert ended == []
    quick.request()
    quick.exit_if_requested(3)
    assert ended == [3]


@pytest.mark.parametrize("code", [0, 2])
def test_main_ends_a_run_that_requested_it_with_the_commands_exit_code(monkeypatch, ended, code):
    from bifrost.app.cli import app as cli

    def run(obj: FastExit) -> None:  # the command line, given main's FastExit: a command asks, click exits
        obj.request()
        raise SystemExit(code)

    monkeypatch.setattr(cli, "app", run)
    with pytest.raises(SystemExit):
        cli.main()
    assert ended == [code]


def test_main_leaves_a_run_that_did_not_request_it_to_the_interpreter(monkeypatch, ended):
    from bifrost.app.cli import app as cli

    def run(obj: FastExit) -> None:
        raise SystemExit(0)

    monkeypatch.setattr(cli, "app", run)
    with pytest.raises(SystemExit):
        cli.main()
    assert ended == []
