"""read_source refuses bad input with a one-line SourceParseError naming the file."""

from __future__ import annotations

import importlib
import sys
import time
import tracemalloc
import types
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import BinaryIO

import pymupdf
import pytest

from bifrost.core.errors import SourceParseError
from bifrost.graph_builders.jurisdictions.registry import pack_of
from bifrost.graph_builders.scrape.sniff import check_utf8, read_source

MB = 1024 * 1024
CFR_FORMATS = pack_of("osha-1926").formats


@pytest.fixture()
def xml_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Use the real eCFR XML parser when it exists; until then a stand-in that only parses."""
    try:
        importlib.import_module("bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_xml")
    except ModuleNotFoundError as e:
        if e.name != "bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_xml":
            raise
        stub = types.ModuleType("bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_xml")
        stub.parse_ecfr_xml = lambda path, corpus, **_: ElementTree.parse(path)  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, stub.__name__, stub)


def _refused(path: Path, **opts: object) -> SourceParseError:
    with pytest.raises(SourceParseError) as err:
        read_source(path, "osha-1926", CFR_FORMATS, **opts)
    message = str(err.value)
    assert message.startswith(f"{path}: ")
    assert "\n" not in message and len(message) < 400
    return err.value


def test_malformed_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "part.json"
    path.write_text('[{"section": "1926.1", "title": "§ 1926.1 Purpose.", "content": ', encoding="utf-8")
    assert "JSON" in _refused(path).reason


def test_malformed_xml_is_refused(tmp_path: Path, xml_parser: None) -> None:
    path = tmp_path / "part.xml"
    path.write_text("<ECFR><DIV8 N='1926.1'><HEAD>§ 1926.1</HEAD><P>(a) text</DIV8>", encoding="utf-8")
    assert _refused(path).reason


def test_html_without_sections_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text("<html><body><h1>Welcome</h1><p>No rules here.</p></body></html>", encoding="utf-8")
    assert "no regulation sections found" in _refused(path).reason


def test_corrupt_pdf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.pdf"
    path.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\nthis is not a pdf body\n%%EOF")
    assert "PDF" in _refused(path).reason


def test_a_file_named_pdf_that_is_not_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_text("hello", encoding="utf-8")
    assert "not a PDF" in _refused(path).reason


def test_encrypted_pdf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), "§ 1926.451 General requirements.")
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    assert "password" in _refused(path).reason


@pytest.mark.parametrize("name", ["empty.json", "empty.xml", "empty.html", "empty.pdf"])
def test_empty_file_is_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    assert _refused(path).reason == "empty file"


def test_whitespace_only_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "blank.json"
    path.write_bytes(b"  \n\t\n")
    assert "whitespace only" in _refused(path).reason


def test_non_utf8_text_is_refused_with_the_byte_offset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.html"
    path.write_bytes(
        "<p>§ 1926.1 Zweck und Geltungsbereich für".encode("utf-8") + "Prüfung".encode("latin-1")
    )
    offset = len("<p>§ 1926.1 Zweck und Geltungsbereich für".encode("utf-8")) + 2
    assert _refused(path).reason == f"not valid UTF-8 at byte {offset}"


def test_utf8_check_finds_a_bad_byte_across_chunk_boundaries(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b"{" + "é".encode("utf-8") * 10 + b"\xff")
    with pytest.raises(SourceParseError, match="at byte 21"):
        check_utf8(path, chunk=3)  # 'é' is split across reads; the bad byte is number 21


def test_utf8_check_returns_the_first_character_after_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_bytes(b"\xef\xbb\xbf  [1]")
    assert check_utf8(path, chunk=2) == "["


def test_unknown_extension_lists_supported_formats(tmp_path: Path) -> None:
    path = tmp_path / "rules.docx"
    path.write_bytes(b"PK\x03\x04")
    reason = _refused(path).reason
    assert "'.docx'" in reason
    for ext in (".html", ".htm", ".json", ".pdf", ".xml"):
        assert ext in reason


def test_json_that_does_not_look_like_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "page.json"
    path.write_text("<html></html>", encoding="utf-8")
    assert "does not look like JSON" in _refused(path).reason


def test_file_over_the_size_limit_is_refused_without_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b" " * (2 * MB) + b"]")
    reason = _refused(path, max_bytes=MB).reason
    assert "over the limit of 1.0 MB" in reason


def _junk(path: Path, unit: bytes) -> Path:
    with path.open("wb") as f:
        _junk_into(f, unit)
    return path


def _within_budget(path: Path) -> SourceParseError:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        error = _refused(path)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert time.perf_counter() - start < 60
    assert peak < 4 * path.stat().st_size
    return error


def test_a_50_mb_html_page_of_junk_is_refused_quickly(tmp_path: Path) -> None:
    path = _junk(tmp_path / "junk.html", b"<div><p>lorem ipsum dolor sit amet</p><span>junk</span></div>\n")
    assert path.stat().st_size >= 50 * MB
    assert "no regulation sections found" in _within_budget(path).reason


def test_a_50_mb_html_page_with_a_heading_is_refused_before_building_a_tree(tmp_path: Path) -> None:
    path = tmp_path / "big.html"
    with path.open("wb") as f:
        f.write("<h2>§ 1926.1 Purpose.</h2>".encode())
        _junk_into(f, b'<p id="p-1926.1(a)">(a) lorem ipsum dolor sit amet shall be done.</p>\n')
    assert "split the page or raise max_tree_bytes" in _within_budget(path).reason


def test_a_50_mb_json_file_of_junk_is_refused_quickly(tmp_path: Path) -> None:
    path = tmp_path / "junk.json"
    with path.open("wb") as f:
        f.write(b'[{"section": "1926.1", "content": "')
        _junk_into(f, b"lorem ipsum dolor sit amet ")
        f.write(b"}")  # the string is never closed
    assert path.stat().st_size >= 50 * MB
    assert "JSON" in _within_budget(path).reason


def _junk_into(f: BinaryIO, unit: bytes, size: int = 50 * MB) -> None:
    block = unit * (MB // len(unit))
    for _ in range(size // len(block) + 1):
        f.write(block)
