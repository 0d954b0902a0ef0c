"""The scripts in examples/ run as users run them (subprocesses) on the small fixture corpus."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT, subprocess_env
from tests.unit.mini_corpus import built_mini_home

pytestmark = pytest.mark.timeout(600)

EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def mini_home(tmp_path_factory) -> Path:
    return built_mini_home(tmp_path_factory.mktemp("examples"))


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=600,
    )


def test_every_example_is_short_and_uses_only_the_public_api():
    for script in EXAMPLES.glob("*.py"):
        text = script.read_text()
        assert len(text.splitlines()) < 60, script.name
        assert "--home" in text and "--corpus" in text
        assert "import retrieval" not in text and "from graph_builders" not in text and "._" not in text


def test_ask_example_prints_each_statement_with_its_verified_span(mini_home):
    r = run(
        "ask_with_quotes.py",
        "--home",
        str(mini_home),
        "--corpus",
        "mini",
        "Who must prepare the fall protection plan?",
    )
    assert r.returncode == 0, r.stderr
    assert "The fall protection plan shall be prepared by a qualified person.  [1926.502(b)(1)]" in r.stdout
    assert (
        "1926.502(b)(1) [0:65] ...>>The fall protection plan shall be prepared by a qualified person.<<..."
        in r.stdout
    )


def test_ablation_example_prints_one_table_and_draws_one_plot(mini_home, tmp_path):
    out = tmp_path / "ablation"
    r = run(
        "ablation.py",
        "--home",
        str(mini_home),
        "--corpus",
        "mini",
        "--questions",
        str(FIXTURES / "mini" / "questions.jsonl"),
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    table = [line for line in r.stdout.splitlines() if line.startswith("|")]
    assert table[0] == "| system | recall@10 | map@10 | ndcg@10 | f1 | f1_h |" and len(table) == 4
    assert (out / "ablation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (
        out / "metrics.json"
    ).is_file()


@pytest.mark.neo4j
def test_neo4j_example_exports_and_runs_a_saved_query(mini_home, neo4j_uri):
    r = run(
        "neo4j_query.py",
        "--home",
        str(mini_home),
        "--corpus",
        "mini",
        "--neo4j",
        neo4j_uri,
        "--query",
        "cross_reference_neighbourhood",
        "--param",
        "id='1926.501(b)(2)(i)'",
    )
    assert r.returncode == 0, r.stderr
    assert "row(s) from cross_reference_neighbourhood" in r.stdout and "0 row(s)" not in r.stdout
