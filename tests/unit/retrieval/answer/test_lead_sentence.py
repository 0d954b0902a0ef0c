"""The offline answer leads with the sentence that answers: the one holding the asked-for fact (a
quantity with its unit, a yes/no condition, a frequency, a role), then the other provisions in
reading order; when none holds it, the answer says the question is left open. Made-up provisions,
a bag-of-words embedder (our own logic only); every statement still passes the quote checker."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from bifrost.core.answer_types import RetrievedItem
from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.answer.extractive import extractive_statements
from bifrost.retrieval.answer.lead_sentence import fact_level, open_note
from bifrost.retrieval.answerability.question_kinds import Ask, Asks, detect
from bifrost.retrieval.answer.quotes import verifies

C = "t"
DIM = 256


class WordsEmbedder:
    """Unit vectors from hashed words: texts sharing words are similar."""

    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace("?", " ").replace(".", " ").split():
                out[i, zlib.crc32(w.encode()) % DIM] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


def prov(pid: str, order: int, text: str) -> Provision:
    return Provision(corpus=C, id=pid, kind=ProvisionKind.PARAGRAPH, order=order, text=text)


RAIL_SCOPE = prov("2(b)", 20, "Guardrail systems and their use shall comply with the following provisions.")
RAIL_HEIGHT = prov(
    "2(b)(1)",
    21,
    "Top edge height of top rails shall be 42 inches plus or minus 3 inches above the walking level.",
)
RAIL_DEF = prov(
    "1(b)[Guardrail]",
    10,
    "Guardrail system means a barrier erected to prevent employees from falling to lower levels.",
)
BELT = prov(
    "2(d)",
    30,
    "Personal fall arrest systems shall comply with the provisions set forth below. "
    "Body belts are not acceptable as part of a personal fall arrest system.",
)
BELT_USE = prov("2(d)(1)", 31, "Personal fall arrest systems shall be inspected before use.")
CRANE = prov(
    "3(f)",
    40,
    "Each crane shall be inspected by a qualified person. The inspection shall be repeated at least every "
    "12 months.",
)
CRANE_SCOPE = prov("3(a)", 35, "This section applies to every crane used in construction.")
ALL = {p.id: p for p in (RAIL_SCOPE, RAIL_HEIGHT, RAIL_DEF, BELT, BELT_USE, CRANE, CRANE_SCOPE)}


def answer(question: str, ranked: list[Provision], reach: list[Provision] = (), lead: str = "fact"):
    items = [RetrievedItem(corpus=C, id=p.id, score=1.0 / (i + 1)) for i, p in enumerate(ranked)]
    further = [RetrievedItem(corpus=C, id=p.id, score=0.1) for p in reach]
    statements = extractive_statements(question, items, ALL.get, WordsEmbedder(), lead, further)
    for st in statements:  # every statement keeps a verified span of the provision it cites
        assert st.quotes and all(verifies(q, ALL[q.provision_id]) for q in st.quotes)
    return statements


def test_a_quantity_question_leads_with_the_sentence_that_has_the_number_and_unit():
    statements = answer("How high must the top rail of a guardrail be?", [RAIL_DEF, RAIL_SCOPE, RAIL_HEIGHT])
    assert statements[0].citations == ("2(b)(1)",) and "42 inches" in statements[0].text


def test_the_other_provisions_follow_in_reading_order_not_rank_order():
    statements = answer("How high must the top rail of a guardrail be?", [RAIL_SCOPE, RAIL_HEIGHT, RAIL_DEF])
    assert [s.citations[0] for s in statements] == ["2(b)(1)", "1(b)[Guardrail]", "2(b)"]


def test_a_yes_no_question_leads_with_the_condition_not_a_bare_shall():
    statements = answer("Can a body belt be used in a personal fall arrest system?", [BELT_USE, BELT])
    assert statements[0].text == "Body belts are not acceptable as part of a personal fall arrest system."


def test_within_a_provision_the_sentence_holding_the_fact_is_quoted():
    statements = answer("How often must a crane be inspected?", [CRANE])
    assert statements[0].text == "The inspection shall be repeated at least every 12 months."
    assert statements[0].quotes[0].start > 0  # a span inside the provision, not its first sentence


def test_when_no_sentence_holds_the_fact_the_answer_says_the_question_is_left_open():
    statements = answer("How often must a crane be inspected?", [CRANE_SCOPE, RAIL_SCOPE])
    assert statements[0].text == open_note(detect("How often must a crane be inspected?"))
    assert statements[0].text == "The cited provisions leave this open: none of them states how often."
    assert statements[0].citations == ("3(a)",)  # it still cites (and quotes) what was found
    # then the provisions, in reading order
    assert [s.citations[0] for s in statements[1:]] == ["2(b)", "3(a)"]


def test_an_open_question_can_be_answered_from_further_down_the_ranking_when_reach_allows():
    statements = answer("How often must a crane be inspected?", [CRANE_SCOPE], reach=[RAIL_SCOPE, CRANE])
    assert statements[0].citations == ("3(f)",) and "every 12 months" in statements[0].text
    assert "leave this open" not in " ".join(s.text for s in statements)


def test_a_question_that_asks_for_no_particular_fact_leads_with_the_best_ranked_provision():
    statements = answer("Guardrail systems on scaffolds.", [RAIL_SCOPE, RAIL_HEIGHT])
    assert statements[0].citations == ("2(b)",)
    assert not any("leave this open" in s.text for s in statements)


def test_rank_mode_is_the_earlier_answer_each_provisions_closest_sentence_in_rank_order():
    statements = answer(
        "How high must the top rail of a guardrail be?", [RAIL_DEF, RAIL_SCOPE, RAIL_HEIGHT], lead="rank"
    )
    assert [s.citations[0] for s in statements] == ["1(b)[Guardrail]", "2(b)", "2(b)(1)"]


@pytest.mark.parametrize(
    "sentence, ask, level",
    [
        ("Top rails shall be 42 inches high.", Ask(Asks.QUANTITY, frozenset({"length"})), 1),
        # a weight is not a height
        ("Top rails shall withstand 200 pounds.", Ask(Asks.QUANTITY, frozenset({"length"})), 0),
        ("Only trained employees may enter the zone.", Ask(Asks.YES_NO), 2),
        ("Employees shall wear harnesses.", Ask(Asks.YES_NO), 1),
        ("Harnesses are blue.", Ask(Asks.YES_NO), 0),
        ("The plan shall be prepared by a qualified person.", Ask(Asks.WHO), 1),
        ("Anything at all.", Ask(Asks.OTHER), 0),
    ],
)
def test_fact_level_of_a_sentence(sentence, ask, level):
    assert fact_level(sentence, ask) == level


def test_the_open_note_names_what_was_asked():
    assert (
        open_note(Ask(Asks.QUANTITY, frozenset({"length"})))
        == "The cited provisions leave this open: none of them states the value asked for."
    )
    assert open_note(Ask(Asks.PROPERTY, prop="color")).endswith("states the color asked for.")
    assert open_note(Ask(Asks.WHO)).endswith("states who.")


def test_a_sentence_that_only_opens_a_list_is_never_the_one_a_provision_is_stated_by():
    from bifrost.retrieval.answer.base import Candidate
    from bifrost.retrieval.answer.lead_sentence import best_of

    p = Provision(corpus="c", id="1926.502(k)", kind=ProvisionKind.PARAGRAPH, text="")
    intro = Candidate(0, p, "The fall protection plan must conform to the following provisions.", 0.9, 0)
    duty = Candidate(0, p, "The fall protection plan shall be prepared by a qualified person.", 0.6, 0)
    assert best_of([intro, duty]) is duty and best_of([intro]) is intro
