"""Property-based tests of the source parsers (eCFR JSON and XML, HTML, ADGM JSON, the sniffing
front door): random and mutated files give a `ParsedDocument` or a `SourceParseError`, never another
exception; what they give is a well-formed tree (unique ids, every parent in the document) whose
numbering uses ASCII digits only, with section ids the CFR grammar accepts as they are."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ParsedDocument, ProvisionKind
from bifrost.graph_builders.jurisdictions.us_cfr import citation as cfr
from bifrost.graph_builders.jurisdictions.adgm.passages_json import adgm_files, parse_adgm_json
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_json import parse_ecfr_json
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_xml import parse_ecfr_xml
from bifrost.graph_builders.jurisdictions.us_cfr.sources.html_page import parse_html
from bifrost.graph_builders.jurisdictions.registry import pack_of
from bifrost.graph_builders.scrape.sniff import read_source
from tests.conftest import FIXTURES

MINI = json.loads((FIXTURES / "mini" / "part-mini.json").read_text())
XML = (FIXTURES / "ecfr" / "part-9999-mini.xml").read_text()
HTML = (
    "<html><body><h2>§ 1926.500 Scope.</h2><p>(a) Scope. (1) This subpart applies.</p><p>(b) "
    "<i>Definitions.</i></p>"
    "<p><i>Leading edge</i> means x.</p><h2>§ 1926.501 Duty.</h2><p>(a)(1) See § 1926.500(a).</p><p>(2) "
    "More.</p></body></html>"
)
ODD = ["(٢)", "(15²)", "§ 1926.٥٠١ X", "١٩٢٦.٥", "(é)", "\u00a0", "\u200b", "]", "[", "—", "&#167;"]
JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
JSON = st.recursive(
    JSON_LEAF,
    lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=8), c, max_size=4)),
    max_leaves=20,
)
TEXTS = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "§ 1926.500 X.",
            "§ 1926.500-1926.502 [Reserved]",
            "(a) x (1) y",
            "(b)(1)(i)(A)(1)(a) z",
            "Note: x",
            "[Reserved]",
            "Subpart M—Fall",
            "PART 1926—X",
            "§ 1926.٥٠١ X",
            "(٢) y",
            "(15²) x",
            "Appendix A to § 1926.500",
        ]
    ),
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("parser-properties")


def write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    return path


@st.composite
def mutated_text(draw, base: str, inserts: list[str]) -> str:
    s = base
    pieces = st.one_of(st.sampled_from(inserts + ODD), st.text(max_size=5))
    for _ in range(draw(st.integers(1, 6))):
        pos, op = draw(st.integers(0, len(s))), draw(st.integers(0, 2))
        if op == 0:
            s = s[:pos] + draw(pieces) + s[pos:]
        elif op == 1:
            s = s[:pos] + s[pos + draw(st.integers(1, 40)) :]
        else:
            s = s[:pos] + draw(pieces) + s[pos + draw(st.integers(1, 10)) :]
    return s


@st.composite
def mutated_ecfr(draw) -> str:
    items = [dict(x) for x in MINI]
    for _ in range(draw(st.integers(1, 5))):
        item = items[draw(st.integers(0, len(items) - 1))]
        key = draw(st.sampled_from(["title", "section", "content", "path", "source"]))
        op = draw(st.integers(0, 3))
        if op == 0:
            item.pop(key, None)
        elif op == 1:
            item[key] = draw(JSON)
        elif op == 2:
            item[key] = draw(TEXTS)
        else:
            v = str(item.get(key, ""))
            pos = draw(st.integers(0, len(v)))
            item[key] = v[:pos] + draw(TEXTS) + v[pos:]
    if draw(st.booleans()):
        items.append(draw(JSON))
    return json.dumps(items)


XML_INSERTS = [
    "<P>",
    "</P>",
    "<I>",
    "</I>",
    "(a)",
    "(1)",
    "(i)",
    "(A)",
    "(<I>1</I>)",
    '<DIV8 N="9999.9" TYPE="SECTION">',
    "</DIV8>",
    "<HEAD>§ 9999.1 X</HEAD>",
    "<NOTE>",
    "</NOTE>",
    "&amp;",
    "&bogus;",
    "<![CDATA[x]]>",
    '<DIV6 N="ZZ" TYPE="SUBPART">',
    "<HEAD>Appendix A to Subpart M</HEAD>",
    "<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>",
    "&e;",
]
HTML_INSERTS = [
    "<p>",
    "</p>",
    "<i>",
    "</i>",
    "<h2>",
    "</h2>",
    "§ 1926.9 T",
    "1926.12 - Title",
    "(a)",
    "(1)",
    "(i)",
    "(A)",
    "(<i>1</i>)",
    "<table><tr><td>x</td></tr></table>",
    "<script>x</script>",
    "<br>",
    "&nbsp;",
    "Note:",
    "[Reserved]",
    "<div><div><div>",
]
PASSAGES = st.lists(
    st.fixed_dictionaries(
        {
            "ID": st.one_of(st.text(max_size=6), JSON),
            "DocumentID": st.one_of(st.integers(-5, 60), st.sampled_from(["3", "²", "١٢", "x"]), JSON),
            "PassageID": st.one_of(
                st.text(max_size=20),
                st.sampled_from(["6.1.1", "Part 1.Chapter 2.3.(1)", "APP1", "....", "1)", "6.1.1.(b)"]),
                JSON,
            ),
            "Passage": st.one_of(st.text(max_size=20), JSON),
        }
    ),
    max_size=6,
)


def check_document(doc: ParsedDocument, cfr_ids: bool = True) -> None:
    """A closed tree with unique ids (a page may leave out its part and subpart nodes); CFR numbering
    in ASCII digits, section ids canonical."""
    ids = [p.id for p in doc.provisions]
    assert len(ids) == len(set(ids)), "duplicate provision ids"
    for p in doc.provisions:
        outside = (
            cfr_ids
            and p.parent_id is not None
            and cfr.is_valid(p.parent_id)
            and cfr.parse(p.parent_id).kind in ("part", "subpart")
        )
        assert p.parent_id is None or p.parent_id in ids or outside, (
            f"{p.id}: parent {p.parent_id} is not in the document"
        )
        if not cfr_ids:
            continue
        numbering = re.sub(r"\[[^\]]*\]", "", p.id)  # a defined term may hold any character
        assert not any(ch.isdigit() and not ch.isascii() for ch in numbering), f"non-ASCII digits in {p.id!r}"
        if p.kind is ProvisionKind.SECTION and not re.fullmatch(r"\d+\.\d+-\d+\.\d+", p.id):
            assert cfr.normalize(p.id) == p.id


def parsed_or_refused(parse, *args, cfr_ids: bool = True, **kwargs) -> None:
    try:
        doc = parse(*args, **kwargs)
    except SourceParseError as e:
        assert str(e)
        return
    check_document(doc, cfr_ids)


@given(content=mutated_ecfr())
# `(٢)` became a label
@example(content=json.dumps([{**MINI[1], "content": "(a) x (15²) y (١) z\n(b)(٢) q"}]))
@example(content=json.dumps([{**MINI[1], "section": "1926.٥٠١", "title": "§ 1926.٥٠١ Duty"}]))  # id 1926.٥٠١
@example(content="[" * 5000 + "]" * 5000)  # RecursionError escaped a direct call
def test_ecfr_json(folder, content):
    parsed_or_refused(parse_ecfr_json, write(folder, "part.json", content), "osha-1926")


@given(content=mutated_text(XML, XML_INSERTS))
@example(
    content=XML.replace(
        'N="9999.502" TYPE="SECTION">\n<HEAD>§ 9999.502', 'N="9999.٥٠٢" TYPE="SECTION">\n<HEAD>§ 9999.٥٠٢'
    )
)
# part '' and subpart 'm!'
@example(content=XML.replace('<DIV5 N="9999"', '<DIV5 N=""').replace('<DIV6 N="M"', '<DIV6 N="m!"'))
@example(
    content=XML.replace("<HEAD>§ 9999.500 Scope and definitions.</HEAD>", "<HEAD>Scope</HEAD>").replace(
        'N="9999.500"', 'N="garbage"'
    )
)
def test_ecfr_xml(folder, content):
    parsed_or_refused(parse_ecfr_xml, write(folder, "part.xml", content), "osha-1926")


@given(content=mutated_text(HTML, HTML_INSERTS))
@example(content=HTML.replace("(2) More", "(٢) More"))
@example(content=HTML.replace("§ 1926.500", "§ 1926.00"))  # section id 1926.00, which the grammar refuses
@example(content=HTML.replace("§ 1926.501 Duty", "§ 11926.12 - Title"))  # five-digit part 11926
# a lettered section the grammar refused
@example(content=HTML.replace("§ 1926.501 Duty", "§ 1926.501a Duty"))
def test_html(content):
    parsed_or_refused(parse_html, content, "osha-1926")


@given(passages=PASSAGES)
# int('²') ValueError
@example(passages=[{"ID": "u1", "DocumentID": "²", "PassageID": "6.1.1", "Passage": "x"}])
def test_adgm_json(folder, passages):
    parsed_or_refused(parse_adgm_json, write(folder, "1.json", json.dumps(passages)), "adgm", cfr_ids=False)


@example(content=b"[{]", ext=".json")  # malformed JSON straight into the ADGM parser was a JSONDecodeError
@given(
    content=st.one_of(
        st.binary(max_size=80),
        JSON.map(lambda v: json.dumps(v).encode()),
        PASSAGES.map(lambda v: json.dumps(v).encode()),
    ),
    ext=st.sampled_from([".json", ".xml", ".html", ".htm", ".pdf", ".txt", ""]),
)
def test_read_source_refuses_or_parses_any_file(folder, content, ext):
    parsed_or_refused(
        read_source,
        write(folder, f"any{ext}", content),
        "osha-1926",
        pack_of("osha-1926").formats,
        cfr_ids=False,
    )


def test_malformed_adgm_json_is_a_source_parse_error(folder):
    with pytest.raises(SourceParseError, match="malformed JSON"):
        parse_adgm_json(write(folder, "bad.json", "[{"), "adgm")
    with pytest.raises(SourceParseError, match="not UTF-8"):
        parse_adgm_json(write(folder, "bad.json", b"[\xff]"), "adgm")


def test_a_document_id_with_a_non_ascii_digit_is_not_a_number(folder):
    doc = parse_adgm_json(
        write(
            folder, "2.json", json.dumps([{"ID": "u1", "DocumentID": "²", "PassageID": "1", "Passage": "x"}])
        ),
        "adgm",
    )
    assert doc.provisions[0].order < 100000


def test_adgm_files_are_ordered_by_ascii_numbers_only(tmp_path):
    for name in ("10.json", "2.json", "².json", "x.json"):
        (tmp_path / name).write_text("[]")
    assert [f.name for f in adgm_files(tmp_path)] == ["2.json", "10.json", "x.json", "².json"]


def test_non_ascii_digits_never_make_ids(folder):
    items = [
        {**MINI[1], "content": "(a) x\n(b)(٢) q"},
        {**MINI[2], "section": "1926.٥٠٢", "title": "§ 1926.٥٠٢ Systems."},
    ]
    doc = parse_ecfr_json(write(folder, "odd.json", json.dumps(items)), "osha-1926")
    assert all(pid.isascii() for pid in (p.id for p in doc.provisions)) and "1926.501(b)" in {
        p.id for p in doc.provisions
    }


def test_ecfr_xml_ids_come_only_from_cfr_numbers(folder):
    odd = XML.replace('<DIV6 N="M"', '<DIV6 N="m!"').replace(
        "<HEAD>§ 9999.500 Scope and definitions.</HEAD>", "<HEAD>Scope</HEAD>"
    )
    doc = parse_ecfr_xml(write(folder, "odd.xml", odd.replace('N="9999.500"', 'N="garbage"')), "osha-1926")
    ids = {p.id for p in doc.provisions}
    assert "garbage" not in ids and not any("m!" in i for i in ids) and "9999.502" in ids
    assert any("not a subpart letter" in o for o in doc.oddities) and any(
        "'garbage'" in o for o in doc.oddities
    )
    with pytest.raises(SourceParseError, match="no CFR part found"):
        parse_ecfr_xml(write(folder, "nopart.xml", XML.replace('<DIV5 N="9999"', '<DIV5 N=""')), "osha-1926")
