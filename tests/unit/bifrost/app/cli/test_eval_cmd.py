"""`bifrost eval` and `bifrost eval compare` through Typer's runner, with a fake system registered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.eval import registry as registry_mod
from tests.unit.eval.test_runner import FakeSystem


@pytest.fixture
def fake_registered(monkeypatch):
    reg = registry_mod.make_default_registry()
    reg.register("oracle", lambda s, c: FakeSystem("oracle"))
    monkeypatch.setattr(registry_mod, "make_default_registry", lambda: reg)
    return reg


def test_eval_run_then_compare_json(settings, questions_file: Path, tmp_path: Path, fake_registered):
    cli = CliRunner()
    base = ["--home", str(settings.home), "eval"]
    r = cli.invoke(
        app,
        base
        + [
            "--corpus",
            "tiny",
            "--questions",
            str(questions_file),
            "--systems",
            "oracle",
            "--out",
            str(tmp_path / "a"),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["systems"]["oracle"]["metrics"]["recall@1"]["mean"] == pytest.approx(0.5)
    r = cli.invoke(
        app,
        base
        + [
            "--corpus",
            "tiny",
            "--questions",
            str(questions_file),
            "--systems",
            "oracle",
            "--out",
            str(tmp_path / "b"),
            "--limit",
            "2",
        ],
    )
    assert r.exit_code == 0 and "report.md" in r.stdout
    r = cli.invoke(app, base + ["compare", str(tmp_path / "a"), str(tmp_path / "a"), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["comparisons"][0]["mcnemar"]["pvalue"] == 1.0


def test_eval_errors_are_one_line(settings, questions_file: Path, tmp_path: Path, fake_registered):
    cli = CliRunner()
    base = ["--home", str(settings.home), "eval"]
    r = cli.invoke(
        app,
        base
        + [
            "--corpus",
            "tiny",
            "--questions",
            str(questions_file),
            "--systems",
            "nope",
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert r.exit_code == 1 and "unknown system 'nope'; known systems:" in r.stderr
    r = cli.invoke(app, base + ["--corpus", "tiny"])
    assert r.exit_code == 1 and "needs --corpus, --questions and --out" in r.stderr
    r = cli.invoke(app, base + ["compare", str(tmp_path), str(tmp_path)])
    assert r.exit_code == 1 and "per_question.jsonl" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_failing_system_is_printed_the_others_written_and_the_exit_code_is_one(
    settings, questions_file: Path, tmp_path: Path, fake_registered
):
    from bifrost.retrieval.base import SystemResult

    class Broken(FakeSystem):
        def search(self, question: str, k: int) -> SystemResult:
            raise ConnectionError("model unreachable")

    fake_registered.register("broken", lambda s, c: Broken("broken"))
    for only in (["broken"], ["broken", "oracle"]):
        out = tmp_path / "-".join(only)
        r = CliRunner().invoke(
            app,
            [
                "--home",
                str(settings.home),
                "eval",
                "--corpus",
                "tiny",
                "--questions",
                str(questions_file),
                "--systems",
                ",".join(only),
                "--out",
                str(out),
            ],
        )
        assert r.exit_code == 1, r.output
        assert "failed broken: system 'broken' failed on question 'q1': model unreachable" in r.output
        assert set(json.loads((out / "metrics.json").read_text())["systems"]) == set(only) - {"broken"}
