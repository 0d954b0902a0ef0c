"""`bifrost mcp` fails in one line before serving: missing extra, unknown corpus, bad transport."""

from __future__ import annotations

from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.core import extras


def run(home, *args: str):
    return CliRunner().invoke(app, ["--home", str(home), "mcp", *args])


def test_a_missing_mcp_package_is_a_one_line_error_naming_the_extra(home, monkeypatch):
    monkeypatch.setattr(extras, "has_module", lambda module: not module.startswith("mcp"))
    r = run(home)
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "error: this needs the 'mcp' package: pip install 'bifrost-rag[mcp]'"
    ]


def test_an_unknown_corpus_is_refused_before_serving(home):
    r = run(home, "--corpus", "nope", "--no-warm")
    assert r.exit_code == 1 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "nope" in r.stderr


def test_an_unknown_transport_is_a_usage_error(home):
    r = run(home, "--transport", "carrier-pigeon")
    assert r.exit_code == 2 and "carrier-pigeon" in r.stderr
