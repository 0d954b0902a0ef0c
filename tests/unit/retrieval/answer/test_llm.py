"""The answer agent: every statement cited and quoted, citations checked against what was
retrieved, quotes checked against the provision text, refusal by the exact token."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from bifrost.core.prompts import load_prompt
from bifrost.core.answer_types import RetrievedItem
from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.answer.llm import NO_ANSWER, LlmAnswerer, parse_answer
from tests.fake_chat import ScriptedChatModel

H1 = "Employees shall not work in excavations in which there is accumulated water."
H3 = "Diversion ditches shall be used to prevent surface water from entering."
DEF = "Leading edge means the edge of a floor, roof, or formwork for a floor."
PROVS = {
    "1926.651(h)(1)": Provision(corpus="c", id="1926.651(h)(1)", kind=ProvisionKind.PARAGRAPH, text=H1),
    "1926.651(h)(3)": Provision(corpus="c", id="1926.651(h)(3)", kind=ProvisionKind.PARAGRAPH, text=H3),
    "1926.500(b)[Leading edge]": Provision(
        corpus="c", id="1926.500(b)[Leading edge]", kind=ProvisionKind.DEFINITION, text=DEF
    ),
}
ITEMS = [RetrievedItem(corpus="c", id=pid, score=1.0) for pid in PROVS]


def answerer(reply: str) -> tuple[LlmAnswerer, list[list[BaseMessage]]]:
    seen: list[list[BaseMessage]] = []

    def respond(messages: list[BaseMessage]) -> str:
        seen.append(messages)
        return reply

    return LlmAnswerer(ScriptedChatModel(respond=respond)), seen


def answer(reply: str):
    return answerer(reply)[0].answer("How to handle rain?", ITEMS, PROVS.get)


# --- quotes ---
def test_a_statement_with_a_verbatim_quote_reaches_the_answer_with_its_span():
    refused, statements, _ = answer(
        "STATEMENT: Keep surface water out with ditches. [1926.651(h)(3)]\n"
        'QUOTE [1926.651(h)(3)]: "Diversion ditches shall be used"'
    )
    assert not refused
    [st] = statements
    assert st.text == "Keep surface water out with ditches." and st.citations == ("1926.651(h)(3)",)
    assert [(q.provision_id, q.start, q.end) for q in st.quotes] == [("1926.651(h)(3)", 0, 31)]
    assert H3[st.quotes[0].start : st.quotes[0].end] == st.quotes[0].text


def test_a_reply_quoting_text_not_in_the_provision_is_dropped(caplog):
    refused, statements, _ = answer(
        "STATEMENT: Work in water is allowed. [1926.651(h)(1)]\n"
        'QUOTE [1926.651(h)(1)]: "Employees may work in excavations with accumulated water"\n'
        "STATEMENT: Ditches keep water out. [1926.651(h)(3)]\n"
        'QUOTE [1926.651(h)(3)]: "Diversion ditches shall be used"'
    )
    assert [s.text for s in statements] == ["Ditches keep water out."] and not refused
    assert "quote not found verbatim in 1926.651(h)(1)" in caplog.text


def test_a_quote_of_another_provision_than_the_one_labelled_is_dropped():
    refused, statements, _ = answer(
        'STATEMENT: Ditches keep water out. [1926.651(h)(1)]\nQUOTE [1926.651(h)(1)]: "Diversion ditches '
        'shall be used"'
    )
    assert refused and statements == []


def test_an_answer_whose_every_quote_is_invented_is_a_refusal():
    refused, statements, _ = answer(
        'STATEMENT: Anything goes. [1926.651(h)(1)]\nQUOTE [1926.651(h)(1)]: "Anything goes."'
    )
    assert refused and statements == []


def test_a_statement_without_a_quote_is_dropped():
    refused, statements, _ = answer("Keep water out [1926.651(h)(3)].")
    assert refused and statements == []


def test_quotes_are_parsed_robustly():
    reply = (
        "Here is what the provisions say.\n"
        "1. **STATEMENT:** Employees must not work in water. [1926.651(h)(1)]\n"
        "   - **QUOTE** [1926.651(h)(1)]: \u201cEmployees shall not work in excavations\u201d\n"
        "STATEMENT 2: A leading edge is a floor edge. [1926.500(b)[Leading edge]]\n"
        'QUOTE [1926.500(b)[Leading edge]]: "Leading edge means the edge\n'
        'of a floor, roof ... for a floor."\n'
    )
    drafts, dropped = parse_answer(reply, set(PROVS))
    assert dropped == []
    assert [(d.text, d.citations) for d in drafts[1:]] == [
        ("Employees must not work in water.", ("1926.651(h)(1)",)),
        ("A leading edge is a floor edge.", ("1926.500(b)[Leading edge]",)),
    ]
    assert [c.text for c in drafts[2].claims] == [
        "Leading edge means the edge of a floor, roof",
        "for a floor.",
    ]
    refused, statements, _ = answerer(reply)[0].answer("q", ITEMS, PROVS.get)
    assert len(statements) == 2 and len(statements[1].quotes) == 2 and not refused


def test_a_quote_left_open_is_still_checked_without_its_mark():
    drafts, _ = parse_answer(
        'STATEMENT: Ditches. [1926.651(h)(3)]\nQUOTE [1926.651(h)(3)]: "Diversion ditches shall\n\n',
        set(PROVS),
    )
    assert [c.text for c in drafts[0].claims] == ["Diversion ditches shall"]


def test_a_quote_without_an_id_is_looked_up_in_the_statement_citations():
    refused, statements, _ = answer(
        'STATEMENT: Ditches. [1926.651(h)(1)][1926.651(h)(3)]\nQUOTE: "Diversion ditches"'
    )
    assert [s.citations for s in statements] == [("1926.651(h)(3)",)] and not refused


# --- citations ---
def test_statements_keep_only_citations_that_were_retrieved():
    refused, statements, dropped = answer(
        'STATEMENT: Use ditches. [1926.651(h)(3)][1926.999(z)]\nQUOTE [1926.651(h)(3)]: "Diversion ditches"'
    )
    assert [s.citations for s in statements] == [("1926.651(h)(3)",)] and dropped == ["1926.999(z)"]


def test_a_quote_labelled_with_an_unretrieved_id_is_not_checked_against_it():
    refused, statements, dropped = answer('STATEMENT: Masks. [1910.134]\nQUOTE [1910.134]: "respirators"')
    assert refused and statements == [] and dropped == ["1910.134"]


def test_the_prompt_carries_the_question_and_every_retrieved_provision_with_its_text():
    a, seen = answerer(
        'STATEMENT: Keep water out. [1926.651(h)(3)]\nQUOTE [1926.651(h)(3)]: "Diversion ditches"'
    )
    refused, statements, _ = a.answer("How to handle rain?", ITEMS, PROVS.get)
    system, user = seen[0][0].content, seen[0][-1].content
    assert "How to handle rain?" in user and "[1926.651(h)(1)]" in user and H1 in user and NO_ANSWER in user
    assert "QUOTE [" in system and "word for word" in system
    assert not refused and statements[0].citations == ("1926.651(h)(3)",)


def test_the_answer_prompt_keeps_its_earlier_versions_and_the_latest_reads_a_plan():
    assert load_prompt("answer").version == "v3" and "answer plan" in load_prompt("answer").system
    assert "VERDICT" in load_prompt("answer").system and "VERDICT" not in load_prompt("answer", "v2").system
    assert "QUOTE" not in load_prompt("answer", "v1").system


# --- refusal ---
def test_the_exact_refusal_token_is_a_refusal():
    refused, statements, _ = answer(NO_ANSWER)
    assert refused and statements == []


def test_the_token_inside_a_longer_reply_is_not_taken_for_a_refusal_and_uncited_text_is_refused():
    refused, statements, _ = answer(f"I think {NO_ANSWER} maybe.")
    assert refused and statements == []  # no statement survives: nothing was cited or quoted
