"""ADGM PassageID grammar: normalization, parents, kinds, order, rejection."""

from __future__ import annotations

import pytest

from bifrost.core.errors import CitationError
from bifrost.graph_builders.jurisdictions.adgm.citation import AdgmCitation, AdgmGrammar, normalize
from bifrost.graph_builders.citations.base import CitationGrammar, ParsedCitation


@pytest.mark.parametrize(
    ("printed", "canonical"),
    [
        ("6.1.1", "6.1.1"),
        ("6.1.1.(b)", "6.1.1.(b)"),
        ("6.1.3.Guidance.7.", "6.1.3.Guidance.7"),
        ("Part 12.Chapter 3.148.(1)", "Part 12.Chapter 3.148.(1)"),
        ("APP11.A11.1.Guidance.11.", "APP11.A11.1.Guidance.11"),
        ("1.", "1"),
        ("9.3.1B.Guidance.5.", "9.3.1B.Guidance.5"),
        ("PART 4.9.2.1", "Part 4.9.2.1"),
        ("APP 1.A1.1", "APP1.A1.1"),
        ("APP6..A6.3.21", "APP6.A6.3.21"),
        ("8.5.1(2)", "8.5.1.(2)"),
        ("Schedule 1.Part 3 .85.(1)", "Schedule 1.Part 3.85.(1)"),
        ("PART 5.\u200e12.4.2.Guidance.1", "Part 5.12.4.2.Guidance.1"),
        ("4.3.1.Guidance2.", "4.3.1.Guidance2"),
    ],
)
def test_normalize_gives_canonical_segments(printed: str, canonical: str) -> None:
    assert normalize(printed) == canonical


@pytest.mark.parametrize(
    ("pid", "parent"),
    [
        ("6.1.1.(b)", "6.1.1"),
        ("6.1.3.Guidance.7.", "6.1.3.Guidance"),
        ("Part 12.Chapter 3.148.(1)", "Part 12.Chapter 3.148"),
        ("APP11.A11.1", "APP11.A11"),
        ("166).a)", "166)"),
        ("1.", None),
        ("Part 1", None),
    ],
)
def test_parent_drops_the_last_segment(pid: str, parent: str | None) -> None:
    assert AdgmGrammar().parent(pid) == parent


@pytest.mark.parametrize(
    ("pid", "kind"),
    [
        ("Part 3", "part"),
        ("Part 3.Chapter 1", "chapter"),
        ("APP1", "appendix"),
        ("6.1.3.Guidance.7.", "guidance"),
        ("6.1.1.(b)", "paragraph"),
        ("12)", "paragraph"),
        ("6.1.1", "section"),
    ],
)
def test_kind_follows_the_last_segment(pid: str, kind: str) -> None:
    assert AdgmCitation.parse(pid).kind == kind


def test_rule_key_strips_part_and_chapter_containers() -> None:
    assert str(AdgmCitation.parse("Part 6.Chapter 1.58.(2)").rule_key()) == "58.(2)"
    assert str(AdgmCitation.parse("PART 4.9.2.1").rule_key()) == "9.2.1"
    assert str(AdgmCitation.parse("6.1.1").rule_key()) == "6.1.1"


def test_compare_orders_numbers_numerically() -> None:
    g = AdgmGrammar()
    assert g.compare("6.1.2", "6.1.10") == -1
    assert g.compare("9.3.1B", "9.3.1") == 1
    assert g.compare("6.1.1.(b)", "6.1.1.(a)") == 1
    assert g.compare("6.1.1", "6.1.1.") == 0


def test_expand_keeps_known_siblings_between_the_ends() -> None:
    known = ["4.13.4", "4.13.5", "4.13.6", "4.13.6A", "4.13.8", "4.14.1"]
    assert AdgmGrammar().expand("4.13.5", "4.13.8", known) == ["4.13.5", "4.13.6", "4.13.6A", "4.13.8"]


def test_expand_rejects_non_siblings() -> None:
    with pytest.raises(CitationError) as err:
        AdgmGrammar().expand("4.13.5", "4.14.1", [])
    assert "siblings" in err.value.reason


@pytest.mark.parametrize("bad", ["", "  ", "...", "x" * 130])
def test_parse_rejects_empty_or_oversized_ids(bad: str) -> None:
    assert not AdgmGrammar().validate(bad)


def test_grammar_meets_the_citation_grammar_protocol() -> None:
    g = AdgmGrammar()
    assert isinstance(g, CitationGrammar)
    assert isinstance(g.parse("6.1.1.(b)"), ParsedCitation)
    assert g.jurisdiction == "adgm"
