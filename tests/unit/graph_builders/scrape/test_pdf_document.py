"""parse_pdf on PDFs generated here with PyMuPDF: margins, hyphenation, pages, bad files."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from bifrost.core.errors import SourceParseError
from bifrost.graph_builders.jurisdictions.us_cfr.sources.pdf_document import (
    RawLine,
    extract_lines,
    is_noise,
    join_lines,
    join_pair,
    parse_pdf,
)

HEADER = "OSHA Construction Standards - Running Header"
FOOTER = "Printed from the Code of Federal Regulations"

PAGE_1 = [
    "Subpart L - Scaffolds",
    "§ 1926.451 General requirements.",
    "(a) Capacity. (1) Each scaffold and scaffold compo-",
    "nent shall be capable of supporting, without fail-",
    "ure, its own weight and at least 4 times the maxi\u00ad",
    "mum intended load, as required by 1926.451",
    "and by the DGUV-",
    "Regel 112-198 of the employer.",
    "(2) Direct connections to roofs and floors shall be",
    "capable of supporting the loads and shall give protec-",
]
PAGE_2 = [
    "tion of employees working below the scaffold.",
    "(b) Scaffold platform construction. (1) Each platform",
    "shall be fully planked.",
]
TABLE = ["1 2 3 4", "5 6 7 8", "9 10 11 12"]


def _write(page: pymupdf.Page, lines: list[str], y: float, x: float = 72, size: float = 10) -> None:
    writer = pymupdf.TextWriter(page.rect)
    font = pymupdf.Font("helv")
    for i, text in enumerate(lines):
        writer.append((x, y + i * size * 1.3), text, font=font, fontsize=size)
    writer.write_text(page)


def _image(page: pymupdf.Page, rect: pymupdf.Rect) -> None:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 16, 16), False)
    pix.clear_with(120)
    page.insert_image(rect, pixmap=pix)


def make_pdf(path: Path) -> Path:
    """Two pages with header, footer, page numbers, a logo, an image and a table in the body."""
    doc = pymupdf.open()
    for number, body in ((1, PAGE_1), (2, PAGE_2)):
        page = doc.new_page(width=612, height=792)
        _write(page, [HEADER], y=30)
        _image(page, pymupdf.Rect(520, 5, 570, 45))  # logo in the top margin
        _write(page, [FOOTER], y=760)
        _write(page, [str(number)], y=775, x=300)
        _write(page, body, y=100)
        if number == 1:
            _image(page, pymupdf.Rect(100, 400, 300, 500))
        else:
            _write(page, TABLE, y=500, x=300)
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory):
    return parse_pdf(make_pdf(tmp_path_factory.mktemp("pdf") / "subpart-l.pdf"), "osha-1926")


def _by_id(parsed) -> dict:
    return {p.id: p for p in parsed.provisions}


def test_parse_pdf_finds_section_and_paragraphs(parsed) -> None:
    ids = [p.id for p in parsed.provisions]
    assert ids[:3] == ["1926.451", "1926.451(a)", "1926.451(a)(1)"]
    assert {"1926.451(a)(2)", "1926.451(b)", "1926.451(b)(1)"} <= set(ids)
    section = _by_id(parsed)["1926.451"]
    assert section.heading == "General requirements."
    assert section.parent_id == "1926 Subpart L"
    assert parsed.document.format == "pdf" and parsed.document.name == "subpart-l.pdf"
    assert all(p.document == "subpart-l.pdf" for p in parsed.provisions)


def test_parse_pdf_drops_headers_footers_page_numbers_and_tables(parsed) -> None:
    text = " ".join(f"{p.heading} {p.text}" for p in parsed.provisions)
    assert "Running Header" not in text
    assert "Printed from" not in text
    assert "5 6 7 8" not in text
    assert not any(p.text.strip().isdigit() for p in parsed.provisions)
    assert any("table-like" in o for o in parsed.oddities)


def test_parse_pdf_rejoins_hyphenated_words_and_soft_hyphens(parsed) -> None:
    text = _by_id(parsed)["1926.451(a)(1)"].text
    assert "scaffold component shall" in text
    assert "without failure, its own" in text
    assert "the maximum intended" in text
    assert "\u00ad" not in text


def test_parse_pdf_keeps_ids_and_capitalized_compounds(parsed) -> None:
    text = " ".join(_by_id(parsed)["1926.451(a)(1)"].text.split())
    assert "required by 1926.451 and by the DGUV-Regel 112-198 of the employer." in text


def test_parse_pdf_gives_a_paragraph_running_onto_the_next_page_both_pages(parsed) -> None:
    by_id = _by_id(parsed)
    p = by_id["1926.451(a)(2)"]
    assert p.pages == (1, 2)
    assert "shall give protection of employees working below" in " ".join(p.text.split())
    assert by_id["1926.451(a)(1)"].pages == (1,)
    assert by_id["1926.451(b)(1)"].pages == (2,)
    assert by_id["1926.451"].pages == (1, 2)


def test_parse_pdf_fraction_margins_behave_like_points(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "f.pdf")
    parsed = parse_pdf(path, "osha-1926", margins=(50 / 792, 50 / 792, 36 / 612, 36 / 612))
    assert [p.id for p in parsed.provisions] == [p.id for p in parse_pdf(path, "osha-1926").provisions]


@pytest.mark.parametrize(
    ("left", "right", "joined"),
    [
        ("protec-", "tion of", "protection of"),
        ("maxi\u00ad", "mum", "maximum"),
        ("the DGUV-", "Regel 112", "the DGUV-Regel 112"),
        ("§§ 1926.450-", "1926.454", "§§ 1926.450-1926.454"),
        ("required by 1926.451", "and", "required by 1926.451 and"),
        ("paragraph (b)(1)-", "(b)(3)", "paragraph (b)(1)-(b)(3)"),
        ("fall protection -", "the employer", "fall protection - the employer"),
    ],
)
def test_join_pair_rejoins_words_but_keeps_compounds(left: str, right: str, joined: str) -> None:
    assert join_pair(left, right) == joined


def test_join_pair_keeps_a_hyphen_the_document_prints_elsewhere() -> None:
    assert (
        join_pair("a self-", "retracting lifeline", frozenset({"self-retracting"}))
        == "a self-retracting lifeline"
    )


def test_join_lines_moves_a_marker_like_start_back_to_the_previous_page() -> None:
    lines = [
        RawLine("(1) Guardrails as required by paragraph", 1, 0),
        RawLine("(b)(2) of this section shall be used.", 2, 0),
    ]
    (unit,) = join_lines(lines)
    assert [(f.text, f.page) for f in unit.fragments] == [
        ("(1) Guardrails as required by paragraph (b)(2)", 1),
        ("of this section shall be used.", 2),
    ]


def test_join_lines_starts_a_new_line_at_each_paragraph_marker() -> None:
    lines = [
        RawLine("(a) General. Each employer", 1, 0),
        RawLine("shall comply.", 1, 0),
        RawLine("(b) Other.", 1, 0),
    ]
    assert [u.text for u in join_lines(lines)] == ["(a) General. Each employer shall comply.", "(b) Other."]


def test_join_lines_ends_a_paragraph_at_semicolon_and() -> None:
    lines = [
        RawLine("(i) Guardrails; and", 1, 0),
        RawLine("(ii) Toeboards as required by paragraph", 1, 0),
        RawLine("(b)(2) of this section.", 1, 0),
    ]
    assert [u.text for u in join_lines(lines)] == [
        "(i) Guardrails; and",
        "(ii) Toeboards as required by paragraph (b)(2) of this section.",
    ]


@pytest.mark.parametrize(
    ("text", "noise"), [("1 2 3 4", True), ("12.5 % 3 x", True), ("(a) Each employer shall", False)]
)
def test_is_noise_flags_table_like_blocks(text: str, noise: bool) -> None:
    assert is_noise(text) is noise


def _assert_one_line_naming(err: pytest.ExceptionInfo[SourceParseError], path: Path, fragment: str) -> None:
    message = str(err.value)
    assert str(path) in message
    assert "\n" not in message
    assert fragment in err.value.reason


def test_parse_pdf_rejects_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(SourceParseError) as err:
        parse_pdf(path, "osha-1926")
    _assert_one_line_naming(err, path, "empty file")


def test_parse_pdf_rejects_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.pdf"
    path.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\n\x00\x01garbage trailer")
    with pytest.raises(SourceParseError) as err:
        parse_pdf(path, "osha-1926")
    _assert_one_line_naming(err, path, "PDF")


def test_parse_pdf_rejects_an_encrypted_file(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    doc = pymupdf.open(make_pdf(tmp_path / "plain.pdf"))
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    with pytest.raises(SourceParseError) as err:
        parse_pdf(path, "osha-1926")
    _assert_one_line_naming(err, path, "password")


def test_parse_pdf_rejects_a_pdf_without_sections(tmp_path: Path) -> None:
    path = tmp_path / "memo.pdf"
    doc = pymupdf.open()
    _write(doc.new_page(), ["A memo about lunch.", "Nothing regulatory here."], y=100)
    doc.save(path)
    with pytest.raises(SourceParseError) as err:
        parse_pdf(path, "osha-1926")
    _assert_one_line_naming(err, path, "no regulation sections found")


def test_parse_pdf_rejects_bad_margins(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="margins"):
        parse_pdf(tmp_path / "x.pdf", "osha-1926", margins=(10, 10, -1, 10))


def test_extract_lines_notes_a_label_set_in_italics(tmp_path: Path) -> None:
    path = tmp_path / "italic.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    _write(page, ["§ 1926.1 Purpose.", "(a) A. (1) B. (i) C. (A) D."], y=100)
    writer = pymupdf.TextWriter(page.rect)
    writer.append((72, 130), "(", font=pymupdf.Font("helv"), fontsize=10)
    writer.append(writer.last_point, "1", font=pymupdf.Font("helvetica-oblique"), fontsize=10)
    writer.append(writer.last_point, ") Italic level five.", font=pymupdf.Font("helv"), fontsize=10)
    writer.write_text(page)
    doc.save(path)
    lines, _ = extract_lines(pymupdf.open(path), path)
    assert [(line.text, line.italic_label) for line in lines] == [
        ("§ 1926.1 Purpose.", False),
        ("(a) A. (1) B. (i) C. (A) D.", False),
        ("(1) Italic level five.", True),
    ]
