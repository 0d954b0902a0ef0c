"""The LLM answer agent over an answer plan, against a real local OpenAI-protocol server: the plan
reaches the prompt with roles and paths, a provision cited outside the plan is dropped and reported,
a statement quoting words the provision does not hold is removed, and a verdict stands only when a
surviving statement quotes the provision that decides it."""

from __future__ import annotations

import json

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.answer_types import AnswerMode
from tests.openai_stub import OpenAIStub
from tests.unit.mini_corpus import MINI

pytestmark = pytest.mark.timeout(600)

QUESTION = "Can an employer constructing a leading edge use a fall protection plan instead of guardrails?"
DECOMPOSITION = json.dumps(
    {
        "entities": [{"name": "leading edge", "label": "Edge", "definition": "An edge."}],
        "triples": [],
        "section_ids": [],
    }
)


def answer_reply(prompt: str) -> str:
    """A model that gives a verdict, quotes one provision of the plan right, cites one provision outside it,
    and invents the words of another."""
    plan_ids = [
        line[1 : line.index("]")] for line in prompt.splitlines() if line.startswith("[") and "] (" in line
    ]
    first = plan_ids[0]
    return "\n".join(
        [
            f"VERDICT: depends [{first}]",
            f"STATEMENT: The plan's first provision governs it. [{first}]",
            f'QUOTE [{first}]: "{{quote}}"',
            "STATEMENT: An outside rule also applies. [1910.23(a)]",
            'QUOTE [1910.23(a)]: "Every floor hole shall be guarded"',
            f"STATEMENT: Workers may go without protection. [{first}]",
            f'QUOTE [{first}]: "workers may go without any protection at all"',
        ]
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("agent") / "home"
    with Bifrost(Settings(home=home)) as bf:
        assert bf.ingest("mini", [MINI]).files_ok
    return home


def test_the_agent_answers_from_the_plan_and_the_checks_hold(home, monkeypatch):
    seen: list[str] = []
    texts: dict[str, str] = {}

    def reply(body: dict) -> str:
        messages = body["messages"]
        system, user = messages[0]["content"], messages[-1]["content"]
        if "answer plan" not in system:
            return DECOMPOSITION
        seen.append(user)
        out = answer_reply(user)
        first = out.splitlines()[0].split("[")[1].rstrip("]")
        return out.replace("{quote}", texts[first])

    with Bifrost(Settings(home=home)) as offline:
        plan = offline.ask(QUESTION, "mini").plan
        assert plan, "the offline answer has a plan"
        for p in plan:
            prov = offline.provision("mini", p.id)
            texts[p.id] = prov.text.split(".")[0] if prov and prov.text else ""
    with OpenAIStub(reply) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "x")
        with Bifrost(Settings(home=home, llm_model="stub-model")) as bf:
            answer = bf.ask(QUESTION, "mini")
    assert stub.calls >= 1 and seen
    prompt = seen[-1]
    assert QUESTION in prompt and all(f"[{p.id}] ({p.role}" in prompt for p in answer.plan)
    assert answer.mode is AnswerMode.LLM and not answer.refused
    cited = {c for st in answer.statements for c in st.citations}
    assert "1910.23(a)" not in cited  # outside the plan: dropped
    # invented words removed
    assert [st.text for st in answer.statements] == ["The plan's first provision governs it."]
    assert answer.verdict is not None and answer.verdict.value == "depends"
    assert answer.verdict.provision_id == answer.statements[0].citations[0]
