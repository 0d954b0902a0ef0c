"""Specification of the US CFR citation grammar (parse, validate, normalize, hierarchy, ranges)."""

from __future__ import annotations

import pytest

from bifrost.core.errors import CitationError
from bifrost.graph_builders.citations.base import CitationGrammar, ParsedCitation
from bifrost.graph_builders.jurisdictions.us_cfr.citation import (
    CfrCitation,
    CfrGrammar,
    expand_range,
    is_valid,
    normalize,
    parse,
)


@pytest.mark.parametrize(
    ("printed", "canonical"),
    [
        ("§ 1926.502 (k)", "1926.502(k)"),
        ("§ 1926.502(k)", "1926.502(k)"),
        ("1926.451(g)(1)", "1926.451(g)(1)"),
        ("29 CFR 1926.1053(a)(4)(ii)", "1926.1053(a)(4)(ii)"),
        ("1926.451( b )(2)( i )", "1926.451(b)(2)(i)"),
        ("Section 1926.501", "1926.501"),
        ("1926", "1926"),
        ("part 1926", "1926"),
        ("1926 Subpart M", "1926 Subpart M"),
        ("1926 subpart cc", "1926 Subpart CC"),
        ("1926 Subpart M Appendix B", "1926 Subpart M Appendix B"),
        ("1926.1101 Appendix A", "1926.1101 Appendix A"),
        ("1926.703 Appendix", "1926.703 Appendix"),
        ("1926.500(b)[Leading edge]", "1926.500(b)[Leading edge]"),
        ("1926.502(b)(1)[Note 2]", "1926.502(b)(1)[Note 2]"),
        ("1926.1(a)(1)(i)(A)(1)(a)", "1926.1(a)(1)(i)(A)(1)(a)"),
    ],
)
def test_normalize_returns_the_canonical_id(printed: str, canonical: str) -> None:
    assert normalize(printed) == canonical


def test_parse_splits_part_section_labels_and_suffix() -> None:
    cit = parse("1926.500(b)[Leading edge]")
    assert (cit.part, cit.section, cit.paragraphs, cit.suffix) == ("1926", "500", ("b",), "Leading edge")


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "foo",
        "1926.502(1)",  # first level must be a letter
        "1926.502(a)(b)",  # second level must be a number
        "1926.502(a)(1)(iiii)",  # not a roman numeral
        "1926.502(a)(1)(i)(a)",  # fourth level is upper case
        "1926.502(a)(100)",  # numbers stop at 99
        "1926.502(a)(1)(xl)",  # roman stops at xxxix
        "1926.502(ab)",  # doubled letters must repeat one letter
        "1926.1(a)(1)(i)(A)(1)(a)(1)",  # seven levels
        "1926.502(a)[]",
    ],
)
def test_parse_rejects_citations_outside_the_grammar(bad: str) -> None:
    with pytest.raises(CitationError) as err:
        parse(bad)
    assert err.value.citation == bad
    assert not is_valid(bad)


def test_citation_error_names_the_level_and_the_expected_labels() -> None:
    with pytest.raises(CitationError) as err:
        parse("1926.502(a)(b)")
    assert "(b)" in str(err.value)
    assert "level 2" in err.value.reason


@pytest.mark.parametrize(
    "label_ok",
    ["1926.502(z)", "1926.502(aa)", "1926.502(a)(99)", "1926.502(a)(1)(xxx)", "1926.502(a)(1)(i)(Z)"],
)
def test_parse_accepts_labels_at_the_edges_of_each_level(label_ok: str) -> None:
    assert is_valid(label_ok)


@pytest.mark.parametrize(
    ("cid", "level"),
    [
        ("1926", 0),
        ("1926 Subpart M", 1),
        ("1926 Subpart M Appendix B", 2),
        ("1926.502", 2),
        ("1926.502(k)", 3),
        ("1926.1(a)(1)(i)(A)(1)(a)", 8),
        ("1926.500(b)[Leading edge]", 4),
        ("1926.1101 Appendix A", 3),
    ],
)
def test_level_follows_the_conventions(cid: str, level: int) -> None:
    assert parse(cid).level == level


@pytest.mark.parametrize(
    ("cid", "parent"),
    [
        ("1926.502(b)(15)", "1926.502(b)"),
        ("1926.502(b)", "1926.502"),
        ("1926.502", "1926"),
        ("1926.500(b)[Leading edge]", "1926.500(b)"),
        ("1926 Subpart M Appendix B", "1926 Subpart M"),
        ("1926 Subpart M", "1926"),
        ("1926.1101 Appendix A", "1926.1101"),
    ],
)
def test_parent_drops_the_last_component(cid: str, parent: str) -> None:
    assert str(parse(cid).parent()) == parent


def test_part_has_no_parent() -> None:
    assert parse("1926").parent() is None


def test_ancestry_is_strict_and_follows_citation_structure() -> None:
    sec, par, child = parse("1926.451"), parse("1926.451(b)(2)"), parse("1926.451(b)(2)(i)")
    assert sec.is_ancestor_of(child) and par.is_ancestor_of(child)
    assert child.is_descendant_of(sec)
    assert not child.is_ancestor_of(par)
    assert not par.is_ancestor_of(par)
    assert not parse("1926.451(b)(3)").is_ancestor_of(child)
    assert parse("1926").is_ancestor_of(child)


def test_ordering_is_document_order_not_string_order() -> None:
    ids = [
        "1926.502(b)(15)",
        "1926.502(b)(3)",
        "1926.1053",
        "1926.500",
        "1926.502(b)",
        "1926.502(aa)",
        "1926.502(z)",
    ]
    assert [str(c) for c in sorted(parse(i) for i in ids)] == [
        "1926.500",
        "1926.502(b)",
        "1926.502(b)(3)",
        "1926.502(b)(15)",
        "1926.502(z)",
        "1926.502(aa)",
        "1926.1053",
    ]


def test_expand_range_of_sections_by_arithmetic() -> None:
    got = expand_range(parse("1926.500"), parse("1926.503"))
    assert [str(c) for c in got] == ["1926.500", "1926.501", "1926.502", "1926.503"]


def test_expand_range_of_paragraphs_by_label_arithmetic() -> None:
    assert [str(c) for c in expand_range(parse("1926.502(a)"), parse("1926.502(c)"))] == [
        "1926.502(a)",
        "1926.502(b)",
        "1926.502(c)",
    ]
    assert [str(c) for c in expand_range(parse("1926.502(c)(2)(i)"), parse("1926.502(c)(2)(iv)"))] == [
        "1926.502(c)(2)(i)",
        "1926.502(c)(2)(ii)",
        "1926.502(c)(2)(iii)",
        "1926.502(c)(2)(iv)",
    ]


def test_expand_range_over_known_ids_keeps_only_existing_siblings_in_document_order() -> None:
    known = ["1926.503", "1926.500", "1926.502(a)", "1926.501", "1926.409-1926.415", "1926.504"]
    assert [str(c) for c in expand_range(parse("1926.500"), parse("1926.503"), known)] == [
        "1926.500",
        "1926.501",
        "1926.503",
    ]


@pytest.mark.parametrize(
    ("start", "end"),
    [("1926.502(c)", "1926.502(a)"), ("1926.502(a)", "1926.502(c)(1)"), ("1926.502(a)", "1926.503(c)")],
)
def test_expand_range_rejects_reversed_or_non_sibling_ends(start: str, end: str) -> None:
    with pytest.raises(CitationError):
        expand_range(parse(start), parse(end))


def test_grammar_object_satisfies_the_protocol_and_works_on_strings() -> None:
    g = CfrGrammar()
    assert isinstance(g, CitationGrammar)
    assert isinstance(g.parse("1926.502(k)"), ParsedCitation)
    assert g.normalize("§ 1926.502 (k)") == "1926.502(k)"
    assert g.validate("1926.502(k)") and not g.validate("1926.502(1)")
    assert g.parent("1926.502(k)") == "1926.502"
    assert g.compare("1926.502(b)(3)", "1926.502(b)(15)") == -1
    assert g.compare("1926.502(b)", "1926.502(b)") == 0
    assert g.expand("1926.502(a)", "1926.502(c)", ["1926.502(a)", "1926.502(c)"]) == [
        "1926.502(a)",
        "1926.502(c)",
    ]


def test_citations_are_immutable_and_hashable() -> None:
    cit = CfrCitation.parse("1926.502(k)")
    with pytest.raises(AttributeError):
        cit.part = "1910"  # type: ignore[misc]
    assert {cit, CfrCitation.parse("§ 1926.502(k)")} == {cit}
