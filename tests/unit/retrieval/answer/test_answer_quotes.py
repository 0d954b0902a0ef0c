"""Verified quotes end to end on the small fixture corpus: every statement of every answer, in
both modes, carries spans that are exactly the stored text of the provision it cites."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import BaseMessage
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.answer_types import Answer, AnswerMode
from tests.fake_chat import ScriptedChatModel
from tests.unit.mini_corpus import QUESTIONS, build_corpus, write_script_corpus

pytestmark = pytest.mark.timeout(300)

PLAN = "1926.502(b)(1)"
PLAN_TEXT = "The fall protection plan shall be prepared by a qualified person."


@pytest.fixture(scope="module")
def bf(tmp_path_factory) -> Bifrost:
    root = tmp_path_factory.mktemp("quotes")
    bf = Bifrost(Settings(home=root / "home"))
    build_corpus(bf, "mini", write_script_corpus(root))
    yield bf
    bf.close()


def assert_every_span_verifies(bf: Bifrost, answer: Answer) -> None:
    """Re-check each quote against the provision text as stored, independently of the checker."""
    for st in answer.statements:
        assert st.quotes, f"statement without a quote: {st.text!r}"
        assert {q.provision_id for q in st.quotes} == set(st.citations)
        for q in st.quotes:
            stored = bf.provision(answer.corpus, q.provision_id).text
            assert stored[q.start : q.end] == q.text, (q, stored)


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_span_of_every_extractive_answer_verifies(bf, question):
    answer = bf.ask(question, "mini")
    assert answer.mode is AnswerMode.EXTRACTIVE and not answer.refused and answer.statements
    assert_every_span_verifies(bf, answer)


def test_an_extractive_statement_is_the_sentence_it_quotes(bf):
    answer = bf.ask("Who must prepare the fall protection plan?", "mini")
    assert not answer.refused
    st = next(s for s in answer.statements if s.citations == (PLAN,))
    assert st.text == PLAN_TEXT and st.quotes[0].text == PLAN_TEXT
    assert (st.quotes[0].start, st.quotes[0].end) == (0, len(PLAN_TEXT))


def test_a_provision_with_only_a_heading_is_never_stated(bf):
    for question in QUESTIONS:
        for st in bf.ask(question, "mini").statements:
            assert bf.provision("mini", st.citations[0]).text.strip()


def test_the_llm_answer_keeps_verified_quotes_and_drops_an_invented_one(bf, monkeypatch, caplog):
    bf.retriever("mini")  # question decomposition stays offline; only the answer agent is scripted

    def respond(messages: list[BaseMessage]) -> str:
        assert f"[{PLAN}]" in messages[-1].content
        return (
            f"STATEMENT: A qualified person prepares the plan. [{PLAN}]\n"
            f'QUOTE [{PLAN}]: "shall be prepared by a qualified\n person"\n'
            f"STATEMENT: Any employee may prepare the plan. [{PLAN}]\n"
            f'QUOTE [{PLAN}]: "The fall protection plan may be prepared by any employee."'
        )

    monkeypatch.setattr(bf.resources, "chat_model", ScriptedChatModel(respond=respond))
    answer = bf.ask("Who must prepare the fall protection plan?", "mini")
    assert answer.mode is AnswerMode.LLM and not answer.refused
    assert [s.text for s in answer.statements] == ["A qualified person prepares the plan."]
    [q] = answer.statements[0].quotes
    assert (q.provision_id, q.text) == (PLAN, "shall be prepared by a qualified person")
    assert PLAN_TEXT[q.start : q.end] == q.text
    assert "any employee" not in answer.text and "quote not found verbatim" in caplog.text
    assert_every_span_verifies(bf, answer)


def test_bifrost_ask_json_returns_the_spans(bf):
    r = CliRunner().invoke(
        app,
        [
            "--home",
            str(bf.settings.home),
            "ask",
            "Who must prepare the fall protection plan?",
            "--corpus",
            "mini",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    answer = Answer.model_validate(json.loads(r.stdout))
    assert answer.statements and all(st.quotes for st in answer.statements)
    assert_every_span_verifies(bf, answer)
