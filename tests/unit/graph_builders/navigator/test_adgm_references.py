"""ADGM reference extraction on hand-written passages, and the passage-file parser it relies on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.core.errors import SourceParseError
from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.jurisdictions.adgm.references import AdgmReferenceExtractor
from bifrost.graph_builders.navigator.base import ProvisionIndex, ReferenceExtractor
from bifrost.graph_builders.jurisdictions.adgm.passages_json import (
    Passage,
    document_id_of,
    parse_adgm_json,
    passages_to_provisions,
)
from bifrost.graph_builders.jurisdictions.registry import pack_of
from bifrost.graph_builders.scrape.sniff import read_source

# DocumentIDs follow the ObliQA map: 3 COBS, 7 GEN, 13 PRU, 17 FSMR, 33 a guidance note
PASSAGES = [
    ("c1", "3", "6", "CHAPTER SIX"),
    ("c2", "3", "6.1", "Section"),
    ("c3", "3", "6.1.1", "Rule text"),
    ("c4", "3", "6.1.1.(b)", "Paragraph b"),
    ("c5", "3", "6.1.2", "Rule 6.1.1(b) and Rule 5.9.9 apply."),
    ("c6", "3", "6.1.3", "See Rules 6.1.1 to 6.1.2, GEN 3.3.31 and 3.3.32 and PRU 6.8."),
    ("c7", "3", "6.1.3.Guidance.1.", "Under section 58(2)(b) of the FSMR and Chapter 6 of these Rules."),
    ("c8", "3", "6.1.4", "Subject to Rule 6.1.1(b)(iii), see section 215(2) of the Insolvency Regulations."),
    ("c9", "3", "6.1.5", "In accordance with 6.1.1(b), not 1.5 times."),
    ("g1", "7", "3", "GENERAL"),
    ("g2", "7", "3.3", "Systems"),
    ("g3", "7", "3.3.31", "Outsourcing"),
    ("g4", "7", "3.3.32", "More outsourcing"),
    ("p1", "13", "6", "OPERATIONAL RISK"),
    ("p2", "13", "6.8", "Outsourcing risk"),
    ("f1", "17", "Part 6", "Official Listing"),
    ("f2", "17", "Part 6.Chapter 1", "Offers"),
    ("f3", "17", "Part 6.Chapter 1.58.", "Prohibition"),
    ("f4", "17", "Part 6.Chapter 1.58.(2)", "Securities"),
    ("f5", "17", "Part 6.Chapter 1.59.", "See section 58(2) and Part 6."),
    ("d1", "33", "1)", "INTRODUCTION"),
    ("d2", "33", "2)", "As set out in paragraph 1 of this Guidance and section 58 of FSMR."),
]


@pytest.fixture(scope="module")
def provisions() -> list[Provision]:
    provs, _ = passages_to_provisions([Passage(*p) for p in PASSAGES], "adgm")
    return provs


@pytest.fixture(scope="module")
def extractor() -> AdgmReferenceExtractor:
    return AdgmReferenceExtractor()


def _targets(provisions: list[Provision], extractor: AdgmReferenceExtractor, source: str) -> set[str]:
    index = extractor.index(provisions)
    p = next(p for p in provisions if p.id == source)
    return {r.target_id for r in extractor.extract(p, index) if r.target_id}


def _dangling(provisions: list[Provision], extractor: AdgmReferenceExtractor, source: str) -> list[str]:
    index = extractor.index(provisions)
    p = next(p for p in provisions if p.id == source)
    return [r.reason or "" for r in extractor.extract(p, index) if r.target_id is None]


def test_rule_with_paragraph_resolves_to_the_paragraph_passage(provisions, extractor) -> None:
    assert _targets(provisions, extractor, "c5") == {"c4"}


def test_missing_rule_is_dangling_with_reason(provisions, extractor) -> None:
    reasons = _dangling(provisions, extractor, "c5")
    assert reasons == ["no such passage: document 3 rule 5.9.9"]


def test_ranges_and_named_rulebooks_resolve_across_documents(provisions, extractor) -> None:
    assert _targets(provisions, extractor, "c6") == {"c3", "c5", "g3", "g4", "p2"}


def test_section_of_fsmr_uses_the_section_number_and_chapter_of_these_rules(provisions, extractor) -> None:
    assert _targets(provisions, extractor, "c7") == {"f4", "c1"}


def test_deeper_paragraph_falls_back_to_nearest_passage(provisions, extractor) -> None:
    assert _targets(provisions, extractor, "c8") == {"c4"}


def test_reference_to_a_document_outside_the_corpus_is_dangling(provisions, extractor) -> None:
    assert any(
        r.startswith("outside corpus: the Insolvency Regulations")
        for r in _dangling(provisions, extractor, "c8")
    )


def test_bare_three_level_number_resolves_only_when_it_exists(provisions, extractor) -> None:
    assert _targets(provisions, extractor, "c9") == {"c4"}
    assert _dangling(provisions, extractor, "c9") == []


def test_regulations_cite_sections_and_parts_by_number(provisions, extractor) -> None:
    assert _targets(provisions, extractor, "f5") == {"f4", "f1"}


def test_guidance_paragraphs_and_unnamed_statute_sections(provisions, extractor) -> None:
    assert _targets(provisions, extractor, "d2") == {"d1", "f3"}


def test_expand_ranges_off_keeps_only_the_ends() -> None:
    passages = [Passage(f"r{n}", "3", f"4.13.{n}", "x") for n in range(4, 10)]
    passages.append(Passage("s", "3", "4.14.1", "Rules 4.13.5 to 4.13.8 apply."))
    provs, _ = passages_to_provisions(passages, "adgm")
    ex = AdgmReferenceExtractor(expand_ranges=False)
    assert _targets(provs, ex, "s") == {"r5", "r8"}
    assert _targets(provs, AdgmReferenceExtractor(), "s") == {"r5", "r6", "r7", "r8"}


def _found(passages: list[tuple[str, str, str, str]], source: str) -> tuple[set[str], list[str]]:
    """Targets and dangling reasons of `source` among made-up passages (uuid, DocumentID, PassageID, text)."""
    provs, _ = passages_to_provisions([Passage(*p) for p in passages], "adgm")
    ex = AdgmReferenceExtractor()
    refs = ex.extract(next(p for p in provs if p.id == source), ex.index(provs))
    return {r.target_id for r in refs if r.target_id}, [r.reason or "" for r in refs if r.target_id is None]


def test_subsection_cites_the_section_like_section_does() -> None:
    found, _ = _found(
        [
            ("s1", "17", "Part 2.12.", "Fees"),
            ("s2", "17", "Part 2.12.(3)", "The fee is payable."),
            ("s3", "17", "Part 2.13.(1)", "A notice under subsection 12(3)(a) must be in writing."),
        ],
        "s3",
    )
    assert found == {"s2"}


def test_appendix_number_printed_against_app_is_an_appendix_reference() -> None:
    found, _ = _found(
        [
            ("a5", "13", "APP5", "CREDIT VALUATION ADJUSTMENT"),
            ("g4", "7", "APP4", "NOTIFICATIONS"),
            ("r1", "13", "4.9.6", "Calculate it under App5 and GEN App4."),
        ],
        "r1",
    )
    assert found == {"a5", "g4"}


def test_bare_appendix_rule_number_resolves_only_to_that_rule() -> None:
    passages = [
        ("ap", "13", "APP6", "MARKET RISK"),
        ("a1", "13", "APP6.A6.9.3", "Internal models"),
        ("g1", "13", "APP6.A6.9.3.Guidance.4.", "Apply the guidance in A6.9.3 and in A6.9.8."),
        ("a2", "13", "APP6.A6.9.5", "A6.9.5 Each model must be validated."),
    ]
    assert _found(passages, "g1") == ({"a1"}, [])  # A6.9.8 is no passage: no fall back to APP6
    assert _found(passages, "a2") == (set(), [])  # a passage printing its own number cites nothing


def test_section_of_this_guidance_is_its_top_level_section() -> None:
    found, _ = _found(
        [
            ("o2", "18", "2.", "OBJECTIVES"),
            ("o3", "18", "3.4", "Bear in mind the considerations in section 2 of this Guidance."),
        ],
        "o3",
    )
    assert found == {"o2"}


def test_rule_without_a_passage_of_its_own_starts_at_its_first_paragraph() -> None:
    passages = [
        ("p1", "3", "19.14.3.(1)", "A payment order may not be revoked."),
        ("p2", "3", "19.14.3.(2)", "Unless agreed otherwise."),
        ("p3", "3", "19.14.4.(a)", "A standing order may be revoked."),
        ("s", "3", "19.6.1", "See Rule 19.14.3 and Rule 19.14.4."),
        ("t", "3", "19.6.2", "See Rule 19.14.3(5)."),
    ]
    assert _found(passages, "s")[0] == {"p1", "p3"}
    assert _found(passages, "t")[0] == set()  # a named paragraph that is missing is not its first one


def test_this_part_names_the_part_holding_the_source_not_a_chapter() -> None:
    passages = [
        ("c3", "13", "3", "CAPITAL"),
        ("c4", "13", "4", "CREDIT RISK"),
        ("g1", "13", "4.6.Guidance.2.", "The Rules in this Part 3 govern the calculation."),
        ("c6", "5", "6.", "MANAGEMENT"),
        ("f1", "5", "3.2.3", "It meets the requirements in Part 6 of these Rules."),
    ]
    # the source sits in chapter 4, so `this Part 3` is no chapter 3
    assert _found(passages, "g1")[0] == set()
    assert _found(passages, "f1")[0] == {"c6"}  # a rulebook without Parts calls its chapters Parts


def test_a_qualifier_after_a_repeated_keyword_covers_the_whole_list() -> None:
    passages = [
        ("m3", "10", "3", "RECOGNISED INVESTMENT EXCHANGES"),
        ("m4", "10", "4", "RECOGNISED CLEARING HOUSES"),
        ("g1", "7", "3.1", "Scope"),
        ("g2", "7", "3.2", "Systems"),
        ("r1", "10", "7.2.3", "Laws equivalent to chapter 3, chapter 4 of Part 12 of the Foreign Act."),
        ("r2", "10", "7.2.4", "See Rule 3.1 and Rule 3.2 of GEN."),
    ]
    assert _found(passages, "r1")[0] == set()
    assert _found(passages, "r2")[0] == {"g1", "g2"}


def test_chapter_after_part_and_comma_is_a_chapter_of_that_part() -> None:
    found, reasons = _found(
        [
            ("c2", "13", "2", "GENERAL REQUIREMENTS"),
            ("r1", "13", "A10.4.14", "It meets the conditions in Part 7, Chapter 2 therein."),
        ],
        "r1",
    )
    assert found == set() and reasons == ["no such passage: document 13 chapter 2"]


def test_paragraph_of_a_schedule_is_numbered_inside_that_schedule() -> None:
    passages = [
        ("s24", "17", "Part 3.24.", "Section 24"),
        ("p4", "17", "Schedule 1.Part 4", "Contracts of insurance"),
        ("p87", "17", "Schedule 1.Part 3.87.", "Paragraph 87"),
        ("q", "17", "Part 13.159.(3)", "See paragraph 24 of Schedule 5 of the Insolvency Regulations."),
        ("r", "17", "Part 13.160.", "Under paragraph 87 of Schedule 1 and Part 4 of Schedule 1."),
    ]
    found, reasons = _found(passages, "q")
    assert found == set() and reasons == ["outside corpus: the Insolvency Regulations"]
    assert _found(passages, "r")[0] == {"p87", "p4"}


def test_paragraphs_of_another_guidance_are_not_this_documents_paragraphs() -> None:
    passages = [(f"p{n}", "33", f"{n})", "x") for n in (51, 52, 53)]
    passages.append(
        ("s", "33", "99)", "Take into account paragraphs 51-53 of of the Virtual Assets Guidance.")
    )
    found, reasons = _found(passages, "s")
    assert found == set() and reasons == ["outside corpus: the Virtual Assets Guidance"]


def test_extractor_and_its_index_satisfy_the_navigator_protocols(provisions, extractor) -> None:
    assert isinstance(extractor, ReferenceExtractor)
    assert isinstance(extractor.index(provisions), ProvisionIndex)


# ---------------------------------------------------------------- parser


def test_parser_keeps_uuid_ids_parents_kinds_and_document(provisions) -> None:
    by_id = {p.id: p for p in provisions}
    assert by_id["c4"].parent_id == "c3" and by_id["c4"].kind is ProvisionKind.PARAGRAPH
    assert by_id["f4"].parent_id == "f3" and by_id["f2"].kind is ProvisionKind.SUBPART
    assert by_id["c3"].heading == "6.1.1" and document_id_of(by_id["c3"]) == "3"
    assert by_id["c3"].document == "3: Conduct of Business Rulebook (COBS)"
    assert by_id["g1"].order < by_id["p1"].order < by_id["f1"].order


def test_guidance_hangs_under_its_rule_when_no_guidance_heading_exists(provisions) -> None:
    note = {p.id: p for p in provisions}["c7"]
    assert note.kind is ProvisionKind.NOTE
    assert note.parent_id == next(p.id for p in provisions if p.heading == "6.1.3")


def test_duplicate_passage_ids_are_kept_and_reported() -> None:
    passages = [
        Passage("a", "11", "2.", "CHAPTER"),
        Passage("b", "11", "2.1", "x"),
        Passage("c", "11", "2.", "list item"),
        Passage("e", "11", "3.", "list item"),
        Passage("d", "11", "2.2", "y"),
    ]
    provs, odd = passages_to_provisions(passages, "adgm")
    assert [p.id for p in provs] == ["a", "b", "c", "e", "d"]
    assert {p.id: p.parent_id for p in provs}["d"] == "a"  # the heading, not the list item
    assert odd == ["document 11: PassageID '2' occurs 2 times (kept as distinct passages)"]


def test_empty_passages_are_kept_as_nodes() -> None:
    provs, _ = passages_to_provisions([Passage("a", "3", "1.1.1", "")], "adgm")
    assert provs[0].text == "" and provs[0].id == "a"


def test_the_adgm_pack_reads_its_json_as_passage_lists(tmp_path: Path) -> None:
    f = tmp_path / "7.json"
    f.write_text(json.dumps([{"ID": "u1", "DocumentID": 7, "PassageID": "1.", "Passage": "INTRODUCTION"}]))
    doc = read_source(f, "adgm", pack_of("adgm").formats)
    assert doc.document.format == "adgm-json"
    assert [p.id for p in doc.provisions] == ["u1"]


def test_parser_names_the_bad_record(tmp_path: Path) -> None:
    f = tmp_path / "7.json"
    f.write_text(json.dumps([{"ID": "u1", "DocumentID": 7, "PassageID": "1."}]))
    with pytest.raises(SourceParseError) as err:
        parse_adgm_json(f)
    assert "record 0: missing Passage" in str(err.value)
