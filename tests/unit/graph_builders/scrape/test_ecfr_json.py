"""Specification of the eCFR JSON scraper (the shape of the shared Part 1926 corpus)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ProvisionKind
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_json import parse_ecfr_json

PATH = (
    "PART 1926—SAFETY AND HEALTH REGULATIONS FOR CONSTRUCTION\n > PART 1926—SAFETY AND HEALTH "
    "REGULATIONS FOR CONSTRUCTION\n > Subpart M—Fall Protection"
)


def _obj(section: str, title: str, content: str, path: str = PATH) -> dict[str, str]:
    return {
        "source": f"29 CFR {section}",
        "title": title,
        "section": section,
        "content": content,
        "path": path,
    }


def _write(tmp_path: Path, data: object) -> Path:
    p = tmp_path / "part.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def test_part_subpart_and_sections_are_emitted_in_order(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            _obj(
                "1926.500",
                "§ 1926.500 Definitions.",
                "(a) Scope.\n(b) Definitions.\nLeading edge means the edge.\n[59 FR 40730, Aug. 9, 1994]",
            ),
            _obj("1926.502", "§ 1926.502 Criteria.", "(a) General. (1) Install first."),
        ],
    )
    doc = parse_ecfr_json(path)
    ids = [p.id for p in doc.provisions]
    assert ids[:3] == ["1926", "1926 Subpart M", "1926.500"]
    by = {p.id: p for p in doc.provisions}
    assert (
        by["1926 Subpart M"].heading == "Fall Protection"
        and by["1926 Subpart M"].kind is ProvisionKind.SUBPART
    )
    assert by["1926.500(b)[Leading edge]"].parent_id == "1926.500(b)"
    assert by["1926.500"].source_note == "[59 FR 40730, Aug. 9, 1994]"
    assert by["1926.502(a)(1)"].parent_id == "1926.502(a)"
    assert [p.order for p in doc.provisions] == list(range(len(doc.provisions)))
    assert doc.document.format == "ecfr-json" and doc.document.name == "part.json"


def test_reserved_range_becomes_reserved_section_without_text(tmp_path: Path) -> None:
    path = _write(tmp_path, [_obj("1926.409-1926.415", "§§ 1926.409-1926.415 [Reserved]", "")])
    sec = next(p for p in parse_ecfr_json(path).provisions if p.kind is ProvisionKind.SECTION)
    assert sec.id == "1926.409-1926.415" and sec.reserved and sec.text == ""


def test_other_parts_are_left_out_unless_asked(tmp_path: Path) -> None:
    other = _obj("1928.1", "§ 1928.1 Purpose.", "(a) A.", path="PART 1928—AGRICULTURE\n > Subpart A—General")
    path = _write(tmp_path, [_obj("1926.1", "§ 1926.1 Purpose.", "(a) A."), other])
    assert "1928.1" not in {p.id for p in parse_ecfr_json(path).provisions}
    assert "1928.1" in {p.id for p in parse_ecfr_json(path, parts=None).provisions}


def test_bad_section_object_is_reported_and_skipped(tmp_path: Path) -> None:
    path = _write(
        tmp_path, [{"section": "1926.1"}, "nonsense", _obj("1926.2", "§ 1926.2 Variances.", "(a) A.")]
    )
    doc = parse_ecfr_json(path)
    assert "1926.2(a)" in {p.id for p in doc.provisions}
    assert len(doc.oddities) == 2 and doc.oddities[0].startswith("item 0: missing")


def test_title_naming_another_section_is_reported(tmp_path: Path) -> None:
    path = _write(
        tmp_path, [_obj("1926.3", "§ 1926.4 Wrong.", "(a) A."), _obj("1926.2", "§ 1926.2 Ok.", "(a) A.")]
    )
    doc = parse_ecfr_json(path)
    assert any(o.startswith("1926.3: title names") for o in doc.oddities)


def test_subpart_comes_from_structure_file_when_path_lacks_it(tmp_path: Path) -> None:
    structure = {
        "identifier": "29",
        "type": "title",
        "children": [
            {
                "identifier": "1926",
                "type": "part",
                "label_description": "Safety and Health Regulations for Construction",
                "children": [
                    {
                        "identifier": "X",
                        "type": "subpart",
                        "label_description": "Stairways and Ladders",
                        "reserved": False,
                        "children": [{"identifier": "1926.1050", "type": "section"}],
                    }
                ],
            }
        ],
    }
    spath = tmp_path / "structure.json"
    spath.write_text(json.dumps(structure), encoding="utf-8")
    path = _write(tmp_path, [_obj("1926.1050", "§ 1926.1050 Scope.", "(a) A.", path="PART 1926—SAFETY")])
    by = {p.id: p for p in parse_ecfr_json(path, structure_path=spath).provisions}
    assert by["1926.1050"].parent_id == "1926 Subpart X"
    assert by["1926 Subpart X"].heading == "Stairways and Ladders"
    assert by["1926"].heading == "Safety and Health Regulations for Construction"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "file is empty"),
        (b'[{"section": ', "malformed JSON"),
        (b'{"section": "1926.1"}', "expected a JSON array"),
        (b"\xff\xfe[]", "not UTF-8"),
        (b"[]", "no section objects"),
    ],
)
def test_unreadable_files_raise_source_parse_error_naming_the_file(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(SourceParseError) as info:
        parse_ecfr_json(path)
    assert info.value.path == str(path)
    assert reason in info.value.reason and "\n" not in info.value.reason


def test_missing_file_raises_source_parse_error(tmp_path: Path) -> None:
    with pytest.raises(SourceParseError) as info:
        parse_ecfr_json(tmp_path / "absent.json")
    assert "cannot read" in info.value.reason
