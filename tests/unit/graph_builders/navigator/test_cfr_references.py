"""Specification of the rule-based CFR cross-reference extractor on hand-written provisions."""

from __future__ import annotations

import pytest

from bifrost.core.types import Provision, ProvisionKind, Reference
from bifrost.graph_builders.navigator.base import ProvisionIndex, ReferenceExtractor
from bifrost.graph_builders.jurisdictions.us_cfr.index import KnownProvisions
from bifrost.graph_builders.jurisdictions.us_cfr.references import CfrReferenceExtractor

SECTIONS = {
    "1926.451": "L",
    "1926.500": "M",
    "1926.501": "M",
    "1926.502": "M",
    "1926.503": "M",
    "1926.1053": "X",
}
PARAGRAPHS = [
    "1926.451(b)",
    "1926.451(b)(1)",
    "1926.451(b)(2)",
    "1926.451(b)(2)(i)",
    "1926.451(b)(2)(ii)",
    "1926.451(b)(3)",
    "1926.451(b)(3)(i)",
    "1926.451(b)(3)(ii)",
    "1926.451(g)",
    "1926.451(g)(1)",
    "1926.500(a)",
    "1926.500(b)",
    "1926.500(b)[Leading edge]",
    "1926.501(a)",
    "1926.501(b)",
    "1926.501(b)(2)",
    "1926.501(b)(2)(i)",
    "1926.501(b)(2)(ii)",
    "1926.501(b)(12)",
    "1926.501(b)(13)",
    "1926.502(a)",
    "1926.502(b)",
    "1926.502(b)(2)",
    "1926.502(b)(2)(i)",
    "1926.502(b)(2)(ii)",
    "1926.502(b)(2)(iii)",
    "1926.502(b)(3)",
    "1926.502(b)(15)",
    "1926.502(c)",
    "1926.502(c)(2)",
    "1926.502(c)(2)(i)",
    "1926.502(c)(2)(ii)",
    "1926.502(c)(2)(iii)",
    "1926.502(d)",
    "1926.502(d)(1)",
    "1926.502(d)(2)",
    "1926.502(d)(3)",
    "1926.502(d)(10)",
    "1926.502(k)",
    "1926.1053(a)",
    "1926.1053(a)(4)",
    "1926.1053(a)(4)(ii)",
]
APPENDICES = ["1926 Subpart M Appendix B"]


def _known() -> KnownProvisions:
    parents: dict[str, str | None] = {"1926": None}
    for letter in sorted(set(SECTIONS.values())):
        parents[f"1926 Subpart {letter}"] = "1926"
    parents.update({sec: f"1926 Subpart {sub}" for sec, sub in SECTIONS.items()})
    parents.update({a: a.rsplit(" Appendix", 1)[0] for a in APPENDICES})
    return KnownProvisions.from_ids([*parents, *PARAGRAPHS], parents)


KNOWN = _known()
EXTRACTOR = CfrReferenceExtractor()


def _prov(pid: str, text: str) -> Provision:
    kind = ProvisionKind.PARAGRAPH if "(" in pid else ProvisionKind.SECTION
    return Provision(corpus="osha-1926", id=pid, kind=kind, text=text, parent_id=KNOWN.parent_of(pid))


def _targets(pid: str, text: str) -> list[str | None]:
    return [r.target_id for r in EXTRACTOR.extract(_prov(pid, text), KNOWN)]


def _resolved(pid: str, text: str) -> set[str]:
    return {t for t in _targets(pid, text) if t is not None}


def _dangling(pid: str, text: str) -> list[Reference]:
    return [r for r in EXTRACTOR.extract(_prov(pid, text), KNOWN) if r.dangling]


# ------------------------------------------------------------------ absolute citations


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("comply with § 1926.502(k).", "1926.502(k)"),
        ("as required by 1926.451(g)(1), the employer", "1926.451(g)(1)"),
        ("see § 1926.1053(a)(4)(ii) for ladders", "1926.1053(a)(4)(ii)"),
        ("Section 1926.501 sets forth", "1926.501"),
        ("in accordance with 29 CFR 1926.502(d)(1).", "1926.502(d)(1)"),
        ("meets § 1926.502 (k).", "1926.502(k)"),
    ],
)
def test_absolute_citations_resolve_to_existing_ids(text: str, target: str) -> None:
    assert _resolved("1926.503", text) == {target}


def test_section_range_expands_over_existing_sections() -> None:
    got = _resolved("1926.1053(a)", "the requirements of §§ 1926.500 through 1926.503 apply")
    assert got == {"1926.500", "1926.501", "1926.502", "1926.503"}


def test_section_enumeration_inherits_the_section_for_bare_labels() -> None:
    got = _resolved("1926.502(k)", "(See § 1926.501(b)(2), (b)(12), and (b)(13))")
    assert got == {"1926.501(b)(2)", "1926.501(b)(12)", "1926.501(b)(13)"}


def test_section_enumeration_with_a_range_of_paragraphs() -> None:
    got = _resolved("1926.500(a)", "Sections 1926.502(a), (c) through (d), and (k) apply")
    assert got == {"1926.502(a)", "1926.502(c)", "1926.502(d)", "1926.502(k)"}


# ------------------------------------------------------------------ relative and mixed


@pytest.mark.parametrize(
    ("source", "text", "expected"),
    [
        (
            "1926.502(b)(15)",
            "the strength requirements of paragraph (b)(3) of this section.",
            {"1926.502(b)(3)"},
        ),
        (
            "1926.501(b)(2)(i)",
            "a plan which meets the requirements of paragraph (k) of § 1926.502.",
            {"1926.502(k)"},
        ),
        (
            "1926.502(b)(15)",
            "see paragraphs (a) through (c) of this section",
            {"1926.502(a)", "1926.502(b)", "1926.502(c)"},
        ),
        ("1926.502(d)(1)", "as in paragraph (d)(10) of this section", {"1926.502(d)(10)"}),
        (
            "1926.451(b)(2)",
            "Except as provided in paragraphs (b)(2)(i) and (ii) of this section, each",
            {"1926.451(b)(2)(i)", "1926.451(b)(2)(ii)"},
        ),
        (
            "1926.451(b)(2)",
            "Except as provided in paragraphs (b)(2)(i) and (b)(2)(ii) of this section",
            {"1926.451(b)(2)(i)", "1926.451(b)(2)(ii)"},
        ),
        (
            "1926.502(k)",
            "meet paragraph (d)(1), (2) and (3)",
            {"1926.502(d)(1)", "1926.502(d)(2)", "1926.502(d)(3)"},
        ),
        ("1926.502(k)", "the test in paragraph (b)(3) applies", {"1926.502(b)(3)"}),
        (
            "1926.502(k)",
            "see paragraph (c)(2)(i) through (iii)",
            {"1926.502(c)(2)(i)", "1926.502(c)(2)(ii)", "1926.502(c)(2)(iii)"},
        ),
        (
            "1926.451(b)(1)",
            "provided in paragraphs (b)(3) (i) and (ii) of this section",
            {"1926.451(b)(3)(i)", "1926.451(b)(3)(ii)"},
        ),
        ("1926.502(k)", "listed in paragraph ( b )(2)( i ) of this section", {"1926.502(b)(2)(i)"}),
    ],
)
def test_relative_and_mixed_paragraph_references(source: str, text: str, expected: set[str]) -> None:
    assert _resolved(source, text) == expected


def test_of_this_paragraph_is_relative_to_the_current_paragraph() -> None:
    got = _resolved("1926.502(b)(2)", "the members in (i) and (ii) of this paragraph")
    assert got == {"1926.502(b)(2)(i)", "1926.502(b)(2)(ii)"}
    got = _resolved("1926.502(b)(2)", "the members in paragraphs (i) and (ii) of this paragraph")
    assert got == {"1926.502(b)(2)(i)", "1926.502(b)(2)(ii)"}


def test_this_paragraph_with_labels_is_relative_to_the_section() -> None:
    assert _resolved("1926.502(d)(2)", "For purposes of this paragraph (d)(10), the terms") == {
        "1926.502(d)(10)"
    }


def test_enumeration_item_replaces_the_level_it_matches() -> None:
    got = _resolved("1926.502(k)", "paragraphs (b)(2)(i), (ii), and (iii) of this section")
    assert got == {"1926.502(b)(2)(i)", "1926.502(b)(2)(ii)", "1926.502(b)(2)(iii)"}


# ------------------------------------------------------------------ scopes


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("required by this subpart", "1926 Subpart M"),
        ("provided in subpart M of this part", "1926 Subpart M"),
        ("covered under this part", "1926"),
        ("stairways in subpart X of this part", "1926 Subpart X"),
        ("see subpart L", "1926 Subpart L"),
        ("subpart L—Scaffolds of this part", "1926 Subpart L"),
        ("in accordance with appendix B to subpart M of this part", "1926 Subpart M Appendix B"),
        ("see appendix B to this subpart", "1926 Subpart M Appendix B"),
        ("the requirements of this section", "1926.502"),
        ("covered under 29 CFR part 1926", "1926"),
    ],
)
def test_scope_references_resolve_to_scope_nodes(text: str, target: str) -> None:
    assert _resolved("1926.502(b)(3)", text) == {target}


def test_missing_appendix_is_dangling_not_invented() -> None:
    refs = _dangling("1926.502(b)(3)", "see appendix C to subpart M of this part")
    assert [r.reason for r in refs] == ["no such provision: 1926 Subpart M Appendix C"]
    assert refs[0].raw == "appendix C to subpart M of this part"


def test_this_subpart_without_tree_parents_is_dangling() -> None:
    bare = KnownProvisions.from_ids(["1926", "1926.502", "1926.502(a)"])
    prov = Provision(corpus="osha-1926", id="1926.502(a)", kind=ProvisionKind.PARAGRAPH, text="this subpart")
    refs = EXTRACTOR.extract(prov, bare)
    assert [r.target_id for r in refs] == [None]


# ------------------------------------------------------------------ outside the corpus


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("covered by part 1910 of this title", "not in corpus: 1910"),
        ("complies with 29 CFR 1910.134.", "not in corpus: 1910.134"),
        ("under section 107 of the Act", "outside corpus: Act"),
        ("regulated under 40 CFR part 261", "outside corpus: 40 CFR"),
        ("in accordance with ANSI A10.11-1989.", "outside corpus: ANSI"),
        ("paragraph (d)(3)(i)(A) of 29 CFR 1910.134", "not in corpus: 1910.134(d)(3)(i)(A)"),
        ("meets § 1926.502(z).", "no such provision: 1926.502(z)"),
        ("see subpart Z of part 1910", "not in corpus: 1910 Subpart Z"),
    ],
)
def test_references_outside_the_corpus_are_dangling_with_a_reason(text: str, reason: str) -> None:
    refs = _dangling("1926.502(b)(3)", text)
    assert [r.reason for r in refs] == [reason]
    assert refs[0].target_id is None and refs[0].raw in text


def test_grammar_rejection_is_dangling() -> None:
    refs = _dangling("1926.502(b)(3)", "see paragraph (1)(2) of this section")
    assert refs and refs[0].reason.startswith("rejected by grammar")


# ------------------------------------------------------------------ output shape


def test_raw_is_the_exact_matched_span() -> None:
    text = "Except as provided in paragraphs (b)(2)(i) and (b)(2)(ii) of this section, each"
    refs = EXTRACTOR.extract(_prov("1926.451(b)(2)", text), KNOWN)
    assert {r.raw for r in refs} == {"paragraphs (b)(2)(i) and (b)(2)(ii) of this section"}
    assert all(
        r.extractor == "rules" and r.corpus == "osha-1926" and r.source_id == "1926.451(b)(2)" for r in refs
    )


def test_no_self_references() -> None:
    assert _resolved("1926.502(b)(3)", "the load in paragraph (b)(3) of this section") == set()
    assert _resolved("1926.502", "the requirements of this section") == set()


def test_references_are_deduplicated_per_target() -> None:
    refs = EXTRACTOR.extract(
        _prov("1926.502(k)", "see § 1926.502(b)(3) and paragraph (b)(3) of this section"), KNOWN
    )
    assert [r.target_id for r in refs] == ["1926.502(b)(3)"]


def test_note_heading_naming_its_own_paragraph_is_not_a_reference() -> None:
    prov = Provision(
        corpus="osha-1926",
        id="1926.451(b)(2)(i)[Note]",
        kind=ProvisionKind.NOTE,
        parent_id="1926.451(b)(2)(i)",
        text="Note to paragraph ( b )(2)( i ): the requirement in paragraph (b)(2)(ii) is stayed.",
    )
    assert [r.target_id for r in EXTRACTOR.extract(prov, KNOWN)] == ["1926.451(b)(2)(ii)"]


def test_definition_resolves_relative_to_its_section() -> None:
    prov = Provision(
        corpus="osha-1926",
        id="1926.500(b)[Leading edge]",
        kind=ProvisionKind.DEFINITION,
        parent_id="1926.500(b)",
        text="as defined in paragraph (a) of this section and § 1926.501(b)(2)",
    )
    assert {r.target_id for r in EXTRACTOR.extract(prov, KNOWN)} == {"1926.500(a)", "1926.501(b)(2)"}


def test_an_index_of_bare_ids_resolves_by_citation_parents() -> None:
    prov = _prov("1926.502(b)(15)", "paragraph (b)(3) of this section")
    assert [r.target_id for r in EXTRACTOR.extract(prov, KnownProvisions.from_ids(KNOWN.ids))] == [
        "1926.502(b)(3)"
    ]


def test_an_index_of_bare_ids_knows_citation_parents_siblings_and_parts_only() -> None:
    bare = KnownProvisions.from_ids(KNOWN.ids)
    assert bare.parent_of("1926.502(b)(3)") == "1926.502(b)"
    assert bare.parent_of("1926.502") is None  # its subpart is not in the citation
    assert set(bare.siblings_of("1926.502(b)(2)")) == {"1926.502(b)(2)", "1926.502(b)(3)", "1926.502(b)(15)"}
    assert bare.has_part("1926") and not bare.has_part("1910")


def test_the_extractor_indexes_provisions_with_their_tree_parents() -> None:
    provs = [
        Provision(corpus="osha-1926", id="1926 Subpart M", kind=ProvisionKind.SUBPART, parent_id="1926"),
        Provision(corpus="osha-1926", id="1926.502", kind=ProvisionKind.SECTION, parent_id="1926 Subpart M"),
    ]
    index = EXTRACTOR.index(provs)
    assert "1926.502" in index and index.parent_of("1926.502") == "1926 Subpart M"


def test_extractor_and_index_satisfy_their_protocols() -> None:
    assert isinstance(EXTRACTOR, ReferenceExtractor)
    assert isinstance(KNOWN, ProvisionIndex)


def test_bare_labels_need_an_of_clause_to_be_a_reference() -> None:
    assert _resolved("1926.502(k)", "(b)(3) and (d)(1) are listed") == set()
    assert _resolved("1926.502(k)", "see (b)(3) of this section") == {"1926.502(b)(3)"}


def test_text_without_references_gives_nothing() -> None:
    assert (
        EXTRACTOR.extract(
            _prov("1926.502(b)(3)", "A force of 200 pounds (890 N) applied within 2 inches (5.1 cm)."), KNOWN
        )
        == []
    )
