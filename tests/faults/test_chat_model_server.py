"""A chat-model server that is slow (every call times out), against the real local
OpenAI-protocol server: the LLM entity build exits non-zero with one line and the resume command,
and the previous entity network stays. (Garbage replies and a server that is down are covered
by tests/e2e/test_cli_build_entities_faults.py, over the same server.)
"""

from __future__ import annotations

import pytest

from tests.faults.harness import copy_home, error_line, graph_stats, run_cli, sql_counts
from tests.openai_stub import OpenAIStub

pytestmark = [pytest.mark.faults, pytest.mark.timeout(300)]


def test_a_slow_server_fails_the_llm_build_in_one_line_with_the_resume_command_and_keeps_the_network(
    mini_home, tmp_path
):
    home = copy_home(mini_home, tmp_path / "home")
    before, stats = sql_counts(home), graph_stats(home, "mini")
    with OpenAIStub(lambda body: "{}", delay=5.0) as stub:
        env = {
            "BIFROST_LLM_MODEL": "stub-model",
            "OPENAI_BASE_URL": stub.base_url,
            "OPENAI_API_KEY": "x",
            "BIFROST_LLM_TIMEOUT": "0.5",
            "BIFROST_LLM_MAX_RETRIES": "0",
        }
        done = run_cli(home, "build", "entities", "--corpus", "mini", "--extractor", "llm", env=env)
    assert stub.calls > 0
    line = error_line(done)
    assert "is unreachable" in line and "Timeout" in line, line
    assert "resume with `bifrost build entities --corpus mini --extractor llm`" in line
    assert sql_counts(home) == before and graph_stats(home, "mini") == stats
