"""The answer agent: every statement cited, citations checked against what was retrieved,
refusal by the exact token."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from bifrost.core.types import Provision, ProvisionKind, RetrievedItem
from retrieval.answer_llm import NO_ANSWER, LlmAnswerer, parse_statements
from tests.fake_chat import ScriptedChatModel

PROVS = {
    "1926.651(h)(1)": Provision(corpus="c", id="1926.651(h)(1)", kind=ProvisionKind.PARAGRAPH,
                                text="Employees shall not work in excavations in which there is accumulated water."),
    "1926.651(h)(3)": Provision(corpus="c", id="1926.651(h)(3)", kind=ProvisionKind.PARAGRAPH,
                                text="Diversion ditches shall be used to prevent surface water from entering."),
}
ITEMS = [RetrievedItem(corpus="c", id=pid, score=1.0) for pid in PROVS]


def answerer(reply: str) -> tuple[LlmAnswerer, list[list[BaseMessage]]]:
    seen: list[list[BaseMessage]] = []

    def respond(messages: list[BaseMessage]) -> str:
        seen.append(messages)
        return reply

    return LlmAnswerer(ScriptedChatModel(respond=respond)), seen


def test_statements_keep_only_citations_that_were_retrieved():
    statements, dropped = parse_statements(
        "Do not work in water [1926.651(h)(1)]. Use ditches [1926.651(h)(3)][1926.999(z)].", set(PROVS)
    )
    assert [s.citations for s in statements] == [("1926.651(h)(1)",), ("1926.651(h)(3)",)]
    assert dropped == ["1926.999(z)"]


def test_a_statement_without_a_valid_citation_is_dropped():
    statements, _ = parse_statements("Always wear a hat [1926.999]. Ditches help [1926.651(h)(3)].", set(PROVS))
    assert [s.text for s in statements] == ["Ditches help."]


def test_the_prompt_carries_the_question_and_every_retrieved_provision():
    a, seen = answerer("Keep water out [1926.651(h)(3)].")
    refused, statements, _ = a.answer("How to handle rain?", ITEMS, PROVS.get)
    user = seen[0][-1].content
    assert "How to handle rain?" in user and "[1926.651(h)(1)]" in user and NO_ANSWER in user
    assert not refused and statements[0].citations == ("1926.651(h)(3)",)


def test_the_exact_refusal_token_is_a_refusal():
    refused, statements, _ = answerer(NO_ANSWER)[0].answer("q", ITEMS, PROVS.get)
    assert refused and statements == []


def test_the_token_inside_a_longer_reply_is_not_taken_for_a_refusal_and_uncited_text_is_refused():
    refused, statements, _ = answerer(f"I think {NO_ANSWER} maybe.")[0].answer("q", ITEMS, PROVS.get)
    assert refused and statements == []  # no statement survives: nothing was cited


def test_an_answer_citing_only_unretrieved_ids_is_a_refusal():
    refused, statements, dropped = answerer("Do it [1910.134].")[0].answer("q", ITEMS, PROVS.get)
    assert refused and statements == [] and dropped == ["1910.134"]
