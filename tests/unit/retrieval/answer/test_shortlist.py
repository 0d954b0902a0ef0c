"""A shortlist quotes each provision it lists by its sentence that bears most on the question (the first
sentence when that one is not in the stored text: nothing is ever quoted that the provision does not hold),
likeliest first, and leaves out a provision without text."""

from __future__ import annotations

from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.answer.build import shortlist_statements, shortlisted
from bifrost.retrieval.answer.decision import Decided

TEXTS = {
    "1926.451(g)(1)": "Each employee on a scaffold more than 10 feet above a lower level shall be protected. "
    "Paragraphs (g)(1)(i) through (vii) say how.",
    "1926.501(b)(1)": "Each employee on a walking/working surface 6 feet or more above a lower level "
    "shall be protected.",
    "1926.451(g)": "",
}


def lookup(pid: str) -> Provision | None:
    if pid not in TEXTS:
        return None
    return Provision(
        corpus="c", id=pid, parent_id=None, kind=ProvisionKind.PARAGRAPH, heading="", text=TEXTS[pid]
    )


DECIDED = Decided(
    governing=[],
    cited=[],
    related=[],
    shortlist=[
        (
            "1926.451(g)(1)",
            0.45,
            "Each employee on a scaffold more than 10 feet above a lower level shall be protected.",
        ),
        ("1926.451(g)", 0.3, ""),  # a heading: nothing to quote
        ("1926.501(b)(1)", 0.2, "a sentence the provision does not hold"),
        ("1926.9999", 0.1, "gone"),
    ],
)


def test_each_listed_provision_is_quoted_in_order_by_a_sentence_it_holds():
    said = shortlist_statements(DECIDED, lookup)
    assert [s.citations for s in said] == [("1926.451(g)(1)",), ("1926.501(b)(1)",)]
    assert said[0].text.startswith("Each employee on a scaffold") and "Paragraphs" not in said[0].text
    assert said[1].text == TEXTS["1926.501(b)(1)"]  # its first (and only) sentence, not the claimed one
    for s in said:
        for q in s.quotes:
            assert TEXTS[q.provision_id][q.start : q.end] == q.text
    assert {s.role for s in said} == {"shortlist"}


def test_the_records_say_how_likely_each_is_and_carry_the_sentence_quoted():
    said = shortlist_statements(DECIDED, lookup)
    quoted = {s.citations[0]: s.quotes[0].text for s in said}
    listed = shortlisted(DECIDED, "c", lookup, None, quoted)
    assert [(s.id, s.probability) for s in listed] == [("1926.451(g)(1)", 0.45), ("1926.501(b)(1)", 0.2)]
    assert [s.sentence for s in listed] == [quoted[s.id] for s in listed]
    assert (
        listed[1].sentence == TEXTS["1926.501(b)(1)"]
    )  # the first sentence, quoted in place of the claimed one
