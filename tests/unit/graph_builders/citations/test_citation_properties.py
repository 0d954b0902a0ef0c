"""Property-based tests of the citation grammars (CFR and ADGM): random and mutated input parses or
raises `CitationError`, never anything else; ids round-trip (parse(str(c)) == c), normalize is
idempotent, ancestors parse to themselves and sort before their descendants, and document order is
a total order consistent with equality. Regression examples of the bugs these tests found are at
the end. Budget: the `dev`/`ci` hypothesis profiles (tests/conftest.py)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bifrost.core.errors import CitationError
from bifrost.graph_builders.jurisdictions.adgm import citation as adgm
from bifrost.graph_builders.jurisdictions.us_cfr import citation as cfr
from bifrost.graph_builders.jurisdictions.adgm.citation import AdgmCitation, AdgmGrammar
from bifrost.graph_builders.citations.base import CitationGrammar, ParsedCitation
from bifrost.graph_builders.jurisdictions.us_cfr.citation import CfrCitation, CfrGrammar, label_for

GRAMMARS = [CfrGrammar(), AdgmGrammar()]

CFR_SEEDS = (
    "1926",
    "1926 Subpart M",
    "1926 Subpart M Appendix B",
    "1926.502",
    "1926.502(b)(15)",
    "1926.500(b)[Leading edge]",
    "1926.1(a)(1)(i)(A)(<i>1</i>)(<i>a</i>)",
    "1926.703 Appendix",
    "§ 1926.451 (g)(1)",
    "29 CFR 1926.502(k)",
    "1926.502(b)(1)[Note 2]",
    "part 1926 subpart cc",
)
ADGM_SEEDS = (
    "6.1.1",
    "6.1.1.(b)",
    "6.1.3.Guidance.7.",
    "Part 12.Chapter 3.148.(1)",
    "APP11.A11.1.Guidance.11.",
    "9.3.1B",
    "12)",
    "PART 4.9.2.1.",
    "8.5.1(2)",
    "APP 4",
    "Schedule 1.87",
    "6.1.1.(b).(iii)",
)
PIECES = st.one_of(
    st.sampled_from(list("0123456789.()[]§ aAbBivxI<>/-_:,;'\"\u00a0\u200b\t\n²١٢ⅰﬁſKé")),
    st.sampled_from(
        [
            "Subpart",
            "Appendix",
            "Guidance",
            "Part",
            "Chapter",
            "(i)",
            "(<i>1</i>)",
            "[Note]",
            "APP",
            "Schedule",
            "0",
            "00",
        ]
    ),
)


@st.composite
def mutated(draw, seeds: tuple[str, ...]) -> str:
    """A seed id with 1-4 characters or words inserted, deleted or replaced."""
    s = list(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        op, pos = draw(st.integers(0, 2)), draw(st.integers(0, len(s)))
        if op == 0:
            s[pos:pos] = list(draw(PIECES))
        elif s:
            i = min(pos, len(s) - 1)
            if op == 1:
                del s[i]
            else:
                s[i : i + 1] = list(draw(PIECES))
    return "".join(s)


ANY_TEXT = st.one_of(st.text(max_size=40), mutated(CFR_SEEDS), mutated(ADGM_SEEDS))


@st.composite
def cfr_citations(draw) -> CfrCitation:
    """Well-formed CFR citations of every kind."""
    part = str(draw(st.integers(1, 9999)))
    kind = draw(
        st.sampled_from(
            ["part", "subpart", "subpart_appendix", "section", "section_appendix", "paragraph", "suffixed"]
        )
    )
    letters = st.sampled_from([chr(c) for c in range(65, 91)] + ["AA", "BB", "CC", "DD", "UC"])
    if kind == "part":
        return CfrCitation(part)
    if kind.startswith("subpart"):
        return CfrCitation(
            part, subpart=draw(letters), appendix=draw(letters) if kind == "subpart_appendix" else None
        )
    section = str(draw(st.integers(1, 9999)))
    if kind == "section":
        return CfrCitation(part, section)
    if kind == "section_appendix":
        return CfrCitation(part, section, appendix=draw(st.sampled_from(["", "A", "B", "AA"])))
    depth = draw(st.integers(1, 6))
    labels = tuple(
        label_for(draw(st.integers(1, 39 if pos == 2 else 26 if pos in (0, 3, 5) else 99)), pos)
        for pos in range(depth)
    )
    suffix = (
        draw(st.sampled_from(["Leading edge", "Note", "Note 2", "Anchorage"])) if kind == "suffixed" else None
    )
    return CfrCitation(part, section, labels, suffix)


@st.composite
def adgm_citations(draw) -> AdgmCitation:
    """ADGM ids as the passage files print them, parsed."""
    top = draw(st.sampled_from(["6", "12", "Part 3", "APP4", "Schedule 1", "A6"]))
    tail = draw(
        st.lists(
            st.sampled_from(
                ["1", "3", "9B", "(b)", "(iii)", "(2)", "12)", "a", "Guidance", "Chapter 2", "58"]
            ),
            max_size=5,
        )
    )
    return AdgmCitation.parse(".".join([top, *tail]))


# --- never another exception ----------------------------------------------------------------------


@pytest.mark.parametrize("grammar", GRAMMARS, ids=lambda g: g.jurisdiction)
@given(text=ANY_TEXT)
@example(text="1926.2(b)(15²)")  # ValueError from int('15²') before the fix
@example(text="1926.1(é)")  # a non-ASCII letter was a valid label before the fix
def test_any_text_parses_or_raises_citation_error(grammar: CitationGrammar, text: str):
    assert isinstance(grammar, CitationGrammar)
    try:
        cit = grammar.parse(text)
    except CitationError as e:
        assert str(e) and "\n" not in str(e).split(": ", 1)[0]
        assert grammar.validate(text) is False
        return
    assert isinstance(cit, ParsedCitation) and grammar.validate(text)
    assert isinstance(cit.kind, str) and cit.level >= 0 and isinstance(cit.sort_key(), tuple)


@pytest.mark.parametrize("grammar", GRAMMARS, ids=lambda g: g.jurisdiction)
@given(a=ANY_TEXT, b=ANY_TEXT)
def test_compare_parent_and_expand_raise_only_citation_errors(grammar: CitationGrammar, a: str, b: str):
    for call in (
        lambda: grammar.compare(a, b),
        lambda: grammar.parent(a),
        lambda: grammar.expand(a, b),
        lambda: grammar.expand(a, a),
        lambda: grammar.expand(a, b, [a, b, "1926.502(b)", "6.1.1"]),
    ):
        try:
            call()
        except CitationError:
            pass


# --- round trips ------------------------------------------------------------------------------------


@given(cit=cfr_citations())
def test_cfr_ids_round_trip_and_ancestors_parse(cit: CfrCitation):
    text = str(cit)
    assert CfrCitation.parse(text) == cit
    assert cfr.normalize(text) == text
    for anc in cit.ancestors():
        assert CfrCitation.parse(str(anc)) == anc
        assert anc.is_ancestor_of(cit) and anc < cit and anc.level < cit.level


@given(cit=adgm_citations())
def test_adgm_ids_round_trip_and_ancestors_parse(cit: AdgmCitation):
    text = str(cit)
    assert AdgmCitation.parse(text) == cit
    assert adgm.normalize(text) == text
    for anc in cit.ancestors():
        assert AdgmCitation.parse(str(anc)) == anc and anc.is_ancestor_of(cit)


@pytest.mark.parametrize("grammar", GRAMMARS, ids=lambda g: g.jurisdiction)
@given(text=ANY_TEXT)
@example(text="١٩٢٦.٥٠٢")  # accepted and kept as a second id of 1926.502 before the fix
def test_normalize_is_idempotent_and_ancestors_of_any_parsed_id_parse(grammar: CitationGrammar, text: str):
    try:
        once = grammar.normalize(text)
    except CitationError:
        return
    assert grammar.normalize(once) == once
    cit = grammar.parse(once)
    assert str(cit) == once
    for anc in cit.ancestors():
        assert grammar.normalize(str(anc)) == str(anc)
        assert grammar.compare(str(anc), once) == -1  # an ancestor comes first in document order
    if grammar.jurisdiction == "us-cfr":
        assert all(x.isascii() for x in (cit.part, cit.section or "", *cit.paragraphs))


@pytest.mark.parametrize("grammar", GRAMMARS, ids=lambda g: g.jurisdiction)
@given(a=ANY_TEXT, b=ANY_TEXT)
@example(a="1926 Subpart UC", b="1926 Subpart UC Appendix GR")  # equal keys: an ancestor did not sort first
@example(a="926", b="0926")  # one order key for two ids before leading zeros were refused
@example(a="6.1.(b)", b="6.1.b)")  # ADGM: `(b)` and `b)` compared equal
def test_document_order_is_total_and_consistent_with_equality(grammar: CitationGrammar, a: str, b: str):
    try:
        ca, cb = grammar.parse(a), grammar.parse(b)
    except CitationError:
        return
    order = grammar.compare(a, b)
    assert order == -grammar.compare(b, a)
    assert (order == 0) == (ca == cb)


# --- regressions: the bugs these properties found -----------------------------------------------------


def test_a_label_with_a_superscript_digit_is_a_citation_error_not_a_value_error():
    with pytest.raises(CitationError):
        cfr.parse("1926.2(b)(15²)")


@pytest.mark.parametrize(
    "text", ["١٩٢٦.٥٠٢", "1926.502(b)(٢)", "١٩٢٦", "١٩٢٦ Subpart M", "0926.502", "1926.0502", "0"]
)
def test_non_ascii_digits_and_leading_zeros_are_refused(text):
    assert not cfr.is_valid(text)


def test_non_ascii_letters_are_not_paragraph_labels():
    assert not cfr.is_valid("1926.1(é)") and not cfr.is_valid("1926.1(a)(1)(i)(É)")


def test_subparts_and_appendices_with_any_two_letters_sort_after_their_parent_and_apart():
    g = CfrGrammar()
    assert g.compare("1926 Subpart UC", "1926 Subpart UC Appendix GR") == -1
    assert g.compare("1926 Subpart UC", "1926 Subpart UD") == -1
    assert (
        g.compare("1926 Subpart Z", "1926 Subpart AA") == -1
        and g.compare("1926 Subpart AA", "1926 Subpart BB") == -1
    )
    assert g.compare("1926.703 Appendix", "1926.703 Appendix AB") == -1


def test_adgm_labels_that_differ_only_in_their_brackets_are_ordered_apart():
    g = AdgmGrammar()
    assert g.compare("6.1.(b)", "6.1.b)") != 0 and g.compare("6.1.b)", "6.1.b") != 0
