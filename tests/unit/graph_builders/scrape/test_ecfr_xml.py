"""Specification of the eCFR XML scraper on a hand-made fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from bifrost.core.errors import SourceParseError
from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_xml import parse_ecfr_xml
from tests.conftest import FIXTURES

FIXTURE = FIXTURES / "ecfr" / "part-9999-mini.xml"


@pytest.fixture(scope="module")
def by_id() -> dict[str, Provision]:
    return {p.id: p for p in parse_ecfr_xml(FIXTURE, "test").provisions}


def test_part_subpart_and_sections_come_from_div5_div6_div8(by_id: dict[str, Provision]) -> None:
    assert by_id["9999"].kind is ProvisionKind.PART and by_id["9999"].heading == "SAFETY RULES FOR TEST SITES"
    assert by_id["9999 Subpart M"].heading == "Fall Protection"
    assert (
        by_id["9999.502"].parent_id == "9999 Subpart M" and by_id["9999.502"].heading == "Systems criteria."
    )


def test_italic_labels_give_levels_five_and_six(by_id: dict[str, Provision]) -> None:
    assert by_id["9999.502(b)(1)(i)(A)(1)(b)"].level == 8
    assert by_id["9999.502(b)(1)(i)(A)(2)"].parent_id == "9999.502(b)(1)(i)(A)"
    assert by_id["9999.502(b)(1)(i)(B)"].parent_id == "9999.502(b)(1)(i)"


def test_italic_heading_and_inline_child_are_split(by_id: dict[str, Provision]) -> None:
    assert by_id["9999.502(a)"].heading == "General."
    assert by_id["9999.502(a)(1)"].text == "Systems shall be installed before work starts."


def test_note_element_attaches_to_preceding_paragraph(by_id: dict[str, Provision]) -> None:
    note = by_id["9999.502(b)(1)[Note]"]
    assert note.kind is ProvisionKind.NOTE and note.text == "Stilts raise the required height."


def test_cita_is_the_section_source_note(by_id: dict[str, Provision]) -> None:
    assert by_id["9999.502"].source_note == "[10 FR 101, Jan. 1, 2000, as amended at 11 FR 5, Feb. 2, 2001]"


def test_definitions_are_read_under_their_paragraph(by_id: dict[str, Provision]) -> None:
    assert by_id["9999.500(b)[Leading edge]"].parent_id == "9999.500(b)"


def test_reserved_range_section_is_reserved(by_id: dict[str, Provision]) -> None:
    sec = by_id["9999.503-9999.509"]
    assert sec.reserved and sec.text == ""


def test_div9_becomes_subpart_appendix(by_id: dict[str, Provision]) -> None:
    app = by_id["9999 Subpart M Appendix A"]
    assert app.kind is ProvisionKind.APPENDIX and app.parent_id == "9999 Subpart M"
    assert "measured from the walking surface" in app.text


def test_table_rows_stay_with_their_paragraph(by_id: dict[str, Provision]) -> None:
    assert "Top | 42 in" in by_id["9999.502(b)(1)(ii)"].text


def test_orders_increase_through_the_document() -> None:
    orders = [p.order for p in parse_ecfr_xml(FIXTURE, "test").provisions]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)


@pytest.mark.parametrize(
    ("content", "reason"), [(b"", "empty"), (b"<DIV5><P>", "malformed XML"), (b"<ROOT/>", "no <DIV5>")]
)
def test_bad_xml_raises_source_parse_error(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "bad.xml"
    path.write_bytes(content)
    with pytest.raises(SourceParseError) as info:
        parse_ecfr_xml(path, "test")
    assert info.value.path == str(path) and reason in info.value.reason
