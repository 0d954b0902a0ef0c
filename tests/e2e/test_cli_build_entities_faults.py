"""`bifrost build entities --extractor llm` against a real OpenAI-compatible server on 127.0.0.1
that answers garbage, that is down, or that fails one provision: a failed build exits non-zero
with a one-line error and the resume command, and the previous entity network stays, in SQL and
in the graph store; a build under the failure threshold counts and lists every failed provision.

The CLI runs as a subprocess (real exit code, real stderr), over a copy of one offline-built
mini home per test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.store import entity_tables
from tests.conftest import ROOT
from tests.openai_stub import OpenAIStub, closed_port
from tests.unit.mini_corpus import built_mini_home

pytestmark = pytest.mark.timeout(300)

GOOD = json.dumps(
    {
        "pruned_text": "Employees shall be protected by guardrail systems.",
        "entities": [
            {"name": "employee", "label": "Person"},
            {"name": "guardrail system", "label": "Safety System"},
        ],
        "triples": [{"head": "employee", "relation": "shall_be_protected_by", "tail": "guardrail system"}],
        "section_ids": [],
    }
)
BAD_ID = "1926.502(b)(1)"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return built_mini_home(tmp_path_factory.mktemp("faults"))


@pytest.fixture
def home(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(built, copy)
    return copy


def network(home: Path) -> tuple[list[str], int]:
    """Entity names in SQL and the entity count of the graph store."""
    bf = Bifrost(Settings(home=home))
    try:
        with bf.sql.session() as s:
            names = sorted(e.name for e in entity_tables.load_entities(s, "mini"))
        return names, bf.graph.stats("mini").entities
    finally:
        bf.close()


def build(home: Path, base_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "BIFROST_HOME": str(home),
        "BIFROST_LLM_MODEL": "stub-model",
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "x",
        "BIFROST_LLM_MAX_RETRIES": "0",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "bifrost.app.cli.app",
        "build",
        "entities",
        "--corpus",
        "mini",
        "--extractor",
        "llm",
        *extra,
    ]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240, cwd=home, check=False)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_a_server_answering_garbage_fails_the_build_and_keeps_the_network(home):
    before = network(home)
    assert before[1] > 0 and before[0]
    with OpenAIStub(lambda body: "Sorry, I cannot help with that.") as stub:
        done = build(home, stub.base_url)
    assert stub.calls > 0
    assert done.returncode != 0
    [line] = error_lines(done.stderr)
    assert "nothing written (the previous entity network is kept)" in line
    failed, total = map(int, re.search(r"extraction failed for (\d+) of (\d+) provisions", line).groups())
    assert failed > 0.2 * total
    assert "BIFROST_MAX_EXTRACTION_FAILURE_SHARE" in line
    assert "resume with `bifrost build entities --corpus mini --extractor llm`" in line
    assert network(home) == before


def test_a_server_that_is_down_trips_the_breaker_and_keeps_the_network(home):
    before = network(home)
    done = build(home, f"http://127.0.0.1:{closed_port()}/v1")
    assert done.returncode != 0
    [line] = error_lines(done.stderr)
    assert "is unreachable: 5 consecutive connection failures" in line
    assert "resume with `bifrost build entities --corpus mini --extractor llm`" in line
    assert network(home) == before


def test_failures_under_the_threshold_are_counted_listed_and_the_rest_is_built(home):
    def reply(body: dict) -> str:
        user = (
            body["messages"][-1]["content"] if len(body["messages"]) == 2 else body["messages"][1]["content"]
        )
        return "garbage" if f"Provision: {BAD_ID}\n" in user else GOOD

    with OpenAIStub(reply) as stub:
        done = build(home, stub.base_url, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [f.split(":")[0] for f in report["failed"]] == [BAD_ID]
    assert "entity_extraction failed: invalid output" in report["failed"][0]
    assert report["entities"] == 2 and report["provisions_processed"] == 21
    names, graph_entities = network(home)
    assert names == ["employee", "guardrail system"] and graph_entities >= 2


def test_a_resumed_build_reuses_the_journal(home):
    with OpenAIStub(lambda body: GOOD) as stub:
        first = build(home, stub.base_url)
        calls = stub.calls
        second = build(home, stub.base_url)
    assert first.returncode == 0 and second.returncode == 0, (first.stderr, second.stderr)
    assert " 0 failed" in first.stdout and stub.calls == calls  # every provision came from the journal


def test_a_rerun_after_garbage_asks_the_model_again_and_builds(home):
    with OpenAIStub(lambda body: "Sorry, I cannot help with that.") as bad:
        assert build(home, bad.base_url).returncode != 0
    with OpenAIStub(lambda body: GOOD) as good:  # the cached garbage must not be replayed
        done = build(home, good.base_url, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["failed"] == [] and report["entities"] == 2 and good.calls > 0
    assert network(home)[0] == ["employee", "guardrail system"]
