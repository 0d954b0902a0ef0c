"""The provisions a question names: loose citation styles read as printed ones, resolved by the corpus's own
extractor; a number the corpus lacks is kept with why, or answered from its successor."""

from __future__ import annotations

import pytest

from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.jurisdictions.registry import jurisdiction, named_finder
from bifrost.graph_builders.navigator.successors import read_successors

ROWS = [
    ("1926", None, ProvisionKind.PART, ""),
    ("1926 Subpart M", "1926", ProvisionKind.SUBPART, ""),
    ("1926.501", "1926 Subpart M", ProvisionKind.SECTION, ""),
    ("1926.501(b)", "1926.501", ProvisionKind.PARAGRAPH, "Duty."),
    ("1926.501(b)(10)", "1926.501(b)", ProvisionKind.PARAGRAPH, "Roofing work on low-slope roofs."),
    ("1926 Subpart P", "1926", ProvisionKind.SUBPART, ""),
    ("1926.651", "1926 Subpart P", ProvisionKind.SECTION, ""),
    ("1926.651(k)", "1926.651", ProvisionKind.PARAGRAPH, "Inspections."),
    ("1926.651(k)(1)", "1926.651(k)", ProvisionKind.PARAGRAPH, "Daily inspections by a competent person."),
    ("1926 Subpart L", "1926", ProvisionKind.SUBPART, ""),
    ("1926.453", "1926 Subpart L", ProvisionKind.SECTION, "Aerial lifts."),
    ("1926.550", "1926", ProvisionKind.SECTION, ""),
    ("1926 Subpart CC", "1926", ProvisionKind.SUBPART, ""),
]


@pytest.fixture(scope="module")
def finder():
    provisions = [
        Provision(corpus="c", id=i, parent_id=p, kind=k, text=t, order=n, reserved=(i == "1926.550"))
        for n, (i, p, k, t) in enumerate(ROWS)
    ]
    return named_finder(jurisdiction("us-cfr"), "c", provisions)


@pytest.mark.parametrize(
    "written, expected",
    [
        ("1926.550,a,9", "1926.550(a)(9)"),
        ("1926.404.b.1.ii", "1926.404(b)(1)(ii)"),
        ("subpart m", "Subpart M"),
        ("see 1926.451, a scaffold", "see 1926.451, a scaffold"),  # a comma and a word is not a label chain
        ("1926.451,a,scaffold", "1926.451,a,scaffold"),  # 'scaffold' is no label: left as written
    ],
)
def test_loose_citation_styles_are_read_as_printed_ones(written, expected):
    assert jurisdiction("us-cfr").loosen(written) == expected


def test_a_rulebook_without_loose_forms_reads_citations_as_written():
    assert jurisdiction("adgm").loosen("subpart m of 1926.550,a,9") == "subpart m of 1926.550,a,9"


@pytest.mark.parametrize(
    "question, target",
    [
        ("What does 1926.651(k)(1) require?", "1926.651(k)(1)"),
        ("whether the competent person mentioned in 29 CFR 1926.651(k)(1) must be on site", "1926.651(k)(1)"),
        ("does §1926.651(k)(1) apply here", "1926.651(k)(1)"),
        ("1926.651,k,1 daily?", "1926.651(k)(1)"),
        ("1926.651 (k)(1) inspections", "1926.651(k)(1)"),
        ("what is in subpart m", "1926 Subpart M"),
        ("paragraph (b)(10) of 1926.501", "1926.501(b)(10)"),
        ("Section 1926.501(b)(10) and roofs", "1926.501(b)(10)"),
    ],
)
def test_a_named_provision_resolves_in_every_style(finder, question, target):
    found = finder.find(question)
    assert [c.target_id for c in found] == [target]


def test_a_number_outside_the_corpus_is_kept_with_the_reason(finder):
    (cite,) = finder.find("does 29 CFR 1910.134 apply to respirators?")
    assert cite.target_id is None and "1910.134" in cite.reason


def test_a_missing_paragraph_is_reported_not_dropped(finder):
    (cite,) = finder.find("What does 1926.651(z)(9) say?")
    assert cite.target_id is None and cite.written == "1926.651(z)(9)"


def test_a_reserved_number_is_answered_from_its_successor(finder):
    (cite,) = finder.find("the old 1926.550(a)(9) crane rule")
    assert cite.target_id == "1926 Subpart CC" and cite.via == "successor"
    assert "not in the current edition" in cite.reason


def test_a_removed_section_is_answered_from_its_successor(finder):
    (cite,) = finder.find("1926.556(b)(2)(v) boom trucks")
    assert (cite.target_id, cite.via) == ("1926.453", "successor")


def test_a_question_naming_nothing_names_nothing(finder):
    assert finder.find("Is a hard hat required near an overhead crane load of 12 ft?") == []


def test_successor_tables_are_data_per_jurisdiction():
    assert jurisdiction("us-cfr").successors()["1926.550"].new == "1926 Subpart CC"
    assert jurisdiction("adgm").successors() == {}
    table = read_successors(["# comment", "old,new,note", "1.2,3.4,moved", "bad-row"])
    assert list(table) == ["1.2"] and table["1.2"].note == "moved"


def test_adgm_rules_are_found_in_every_document_they_exist_in():
    rows = [
        Provision(
            corpus="a",
            id=f"{d}-{pid}",
            kind=ProvisionKind.SECTION,
            heading=pid,
            document=f"{d}: Doc {d}",
            text="x",
            order=n,
        )
        for n, (d, pid) in enumerate([(7, "3.2.1"), (7, "3.2"), (9, "3.2.1"), (9, "4.1")])
    ]
    finder = named_finder(jurisdiction("adgm"), "a", rows)
    targets = {c.target_id for c in finder.find("What does Rule 3.2.1 require?")}
    assert targets <= {"7-3.2.1", "9-3.2.1"} and targets


def test_a_rule_found_only_because_no_rulebook_is_named_is_marked_context():
    rows = [
        Provision(
            corpus="a",
            id=f"{d}-{pid}",
            kind=ProvisionKind.SECTION,
            heading=pid,
            document=f"{d}: Doc {d}",
            text="x",
            order=n,
        )
        for n, (d, pid) in enumerate([(7, "3.2.1"), (9, "4.1"), (3, "6.1.1")])
    ]
    finder = named_finder(jurisdiction("adgm"), "a", rows)
    (cite,) = finder.find("What does Rule 3.2.1 require?")
    assert (cite.target_id, cite.via) == ("7-3.2.1", "context")
    (named,) = finder.find("What does GEN Rule 3.2.1 require?")  # document 7 is the General Rulebook (GEN)
    assert (named.target_id, named.via) == ("7-3.2.1", "")
