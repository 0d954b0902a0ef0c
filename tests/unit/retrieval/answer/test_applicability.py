"""Each cited rule's conditions against the question's facts: a height against a height threshold, never a
height against a gap; no figure of the kind is "not stated"; an exception the question takes up is
"stated"."""

from __future__ import annotations

from bifrost.graph_builders.requirements.read import read_sentence
from bifrost.retrieval.answer.applicability import applicability


STOP = {"when", "where", "that", "with", "from", "shall", "must", "each", "using"}


def tokenize(text: str) -> list[str]:
    return [
        w.strip("?.")
        for w in text.lower().replace(",", " ").split()
        if len(w) > 3 and w.strip("?.") not in STOP
    ]


SCAFFOLD = read_sentence(
    "c",
    "1926.451(g)(1)",
    0,
    "Each employee on a scaffold more than 10 feet (3.1 m) above a lower "
    "level shall be protected from falling to that lower level.",
)
GAP = read_sentence(
    "c", "1926.451(g)(1)(v)", 0, "Gaps between the rails shall be not more than 9 1/2 inches apart."
)
GENERATOR = read_sentence(
    "c",
    "1926.404(f)(3)(i)",
    0,
    "Receptacles need not be protected on a two-wire, single-phase "
    "portable generator rated not more than 5 kW, except when the "
    "generator supplies a structure.",
)


def test_a_height_is_checked_against_a_height_threshold_only():
    checks = applicability(
        "Is fall protection required 12ft above a lower level on a scaffold?",
        ["1926.451(g)(1)", "1926.451(g)(1)(v)"],
        [SCAFFOLD, GAP],
        tokenize,
    )
    by_id = {c.provision_id: c for c in checks}
    assert (by_id["1926.451(g)(1)"].status, by_id["1926.451(g)(1)"].fact) == ("met", "12ft")
    assert by_id["1926.451(g)(1)(v)"].status == "not_stated"  # a gap is not a height


def test_a_figure_under_the_threshold_does_not_meet_it():
    (check,) = applicability(
        "Is fall protection required 6 feet above a lower level on a scaffold?",
        ["1926.451(g)(1)"],
        [SCAFFOLD],
        tokenize,
    )
    assert check.status == "not_met"


def test_a_question_without_the_figure_leaves_it_open_and_exceptions_are_listed():
    checks = applicability(
        "Are GFCIs required when using portable generators?", ["1926.404(f)(3)(i)"], [GENERATOR], tokenize
    )
    kinds = {(c.kind, c.status) for c in checks}
    assert ("quantity", "not_stated") in kinds and ("exception", "not_stated") in kinds


def test_only_cited_provisions_in_citation_order():
    checks = applicability(
        "12 feet above", ["1926.451(g)(1)(v)", "1926.451(g)(1)"], [SCAFFOLD, GAP, GENERATOR], tokenize
    )
    assert [c.provision_id for c in checks] == ["1926.451(g)(1)(v)", "1926.451(g)(1)"]
