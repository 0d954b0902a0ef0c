"""parse_html on osha.gov-like and eCFR-like pages: sections, paragraphs, urls, chrome, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ProvisionKind
from bifrost.graph_builders.jurisdictions.us_cfr.sources.html_page import page_runs, parse_html

OSHA_URL = "https://www.osha.gov/laws-regs/regulations/standardnumber/1926/1926.502"

OSHA_PAGE = """<!DOCTYPE html><html><head><title>1926.502 | OSHA</title>
<script>var x = "1926.9";</script></head>
<body>
<header><nav><a href="/">Home</a> <a href="/1926.500">§ 1926.500 Scope</a></nav></header>
<h1 class="page-title">1926.502 - Fall protection systems criteria and practices.</h1>
<div class="field">
  <div class="field--label">Part Number:</div><div class="field--item">1926</div>
  <div class="field--label">Subpart:</div><div class="field--item">1926 Subpart M</div>
  <div class="field--label">Title:</div>
  <div class="field--item">Fall protection systems criteria and practices.</div>
</div>
<div class="field--name-body">
  <div class="paragraph"><a name="1926.502(a)"></a>(a) <em>General.</em></div>
  <div class="paragraph"><a name="1926.502(a)(1)"></a>(1) Fall protection systems required by this part
     shall comply with the applicable provisions of this section.</div>
  <div class="paragraph"><a name="1926.502(a)(2)"></a>(2) Employers shall provide and install all fall
     protection systems required by this subpart.</div>
  <div class="paragraph"><a name="1926.502(b)"></a>(b) <em>Guardrail systems.</em> Guardrail systems and
     their use shall comply with the following provisions:</div>
  <div class="paragraph"><a name="1926.502(b)(1)"></a>(1) Top edge height of top rails
     shall be 42 inches.</div>
  <p>[59 FR 40730, Aug. 9, 1994]</p>
</div>
<h2>Related resources</h2><div>Fall protection training materials</div>
<footer>U.S. Department of Labor | 1926.503 next</footer>
</body></html>"""

ECFR_PAGE = """<html><body><div class="part">
<h3>Subpart L—Scaffolds</h3>
<div class="section" id="1926.451"><h4>§ 1926.451 General requirements.</h4>
  <div id="p-1926.451(a)"><p>(a) <em>Capacity.</em></p></div>
  <div id="p-1926.451(a)(1)"><p>Each scaffold and scaffold component shall be capable of
    supporting its own weight.</p></div>
  <div id="p-1926.451(a)(2)"><p>(2) Direct connections to roofs shall be capable.</p></div>
</div>
<div class="section" id="1926.452">
<h4>§ 1926.452 Additional requirements applicable to specific types of scaffolds.</h4>
  <p id="p-1926.452(a)">(a) <em>Pole scaffolds.</em> (1) When platforms are moved, ledgers shall be moved.</p>
</div>
</div></body></html>"""


@pytest.fixture()
def osha(tmp_path: Path):
    path = tmp_path / "1926.502.html"
    path.write_text(OSHA_PAGE, encoding="utf-8")
    return parse_html(path, "osha-1926", source_url=OSHA_URL)


def test_parse_html_reads_an_osha_standard_page(osha) -> None:
    by_id = {p.id: p for p in osha.provisions}
    assert list(by_id) == [
        "1926.502",
        "1926.502(a)",
        "1926.502(a)(1)",
        "1926.502(a)(2)",
        "1926.502(b)",
        "1926.502(b)(1)",
    ]
    section = by_id["1926.502"]
    assert section.kind is ProvisionKind.SECTION
    assert section.heading == "Fall protection systems criteria and practices."
    assert section.parent_id == "1926 Subpart M"
    assert section.text == ""  # the page's metadata fields are not section text
    assert by_id["1926.502(b)"].heading == "Guardrail systems."
    assert by_id["1926.502(a)(1)"].text.startswith(
        "Fall protection systems required by this part shall comply"
    )


def test_parse_html_keeps_the_source_url(osha) -> None:
    by_id = {p.id: p for p in osha.provisions}
    assert osha.document.url == OSHA_URL
    assert osha.document.format == "html" and osha.document.name == "1926.502.html"
    assert by_id["1926.502"].url == OSHA_URL
    assert by_id["1926.502(b)(1)"].url == f"{OSHA_URL}#1926.502(b)(1)"


def test_parse_html_ignores_navigation_scripts_footers_and_later_headings(osha) -> None:
    text = " ".join(f"{p.heading} {p.text}" for p in osha.provisions)
    for chrome in ("Home", "Scope", "1926.9", "Department of Labor", "training materials", "Part Number"):
        assert chrome not in text
    assert "1926.500" not in {p.id for p in osha.provisions}


def test_parse_html_reads_several_ecfr_sections_from_text() -> None:
    parsed = parse_html(ECFR_PAGE, "osha-1926")
    ids = [p.id for p in parsed.provisions]
    assert ids == [
        "1926.451",
        "1926.451(a)",
        "1926.451(a)(1)",
        "1926.451(a)(2)",
        "1926.452",
        "1926.452(a)",
        "1926.452(a)(1)",
    ]
    by_id = {p.id: p for p in parsed.provisions}
    assert by_id["1926.452"].parent_id == "1926 Subpart L"
    assert [p.order for p in parsed.provisions] == sorted({p.order for p in parsed.provisions})
    # without a source url the official eCFR address is kept
    assert (
        by_id["1926.451(a)(2)"].url
        == "https://www.ecfr.gov/current/title-29/section-1926.451#p-1926.451(a)(2)"
    )


def test_parse_html_takes_a_missing_label_from_the_paragraph_id() -> None:
    parsed = parse_html(ECFR_PAGE, "osha-1926")
    p = next(p for p in parsed.provisions if p.id == "1926.451(a)(1)")
    assert p.text == "Each scaffold and scaffold component shall be capable of supporting its own weight."


def test_page_runs_marks_headings_anchors_and_italic_labels() -> None:
    soup = BeautifulSoup(
        '<div><h2>§ 1926.1 Purpose.</h2><p id="p-1926.1(a)(1)(i)(A)(1)">(<i>1</i>) <em>Scope.</em> '
        "Text.</p></div>",
        "lxml",
    )
    runs = list(page_runs(soup))
    assert [r.text for r in runs] == ["§ 1926.1 Purpose.", "(1) Scope. Text."]
    assert runs[0].heading and not runs[1].heading
    assert runs[1].anchor == "p-1926.1(a)(1)(i)(A)(1)"
    assert runs[1].italic_label and runs[1].italic_heading == "Scope."


def test_parse_html_without_sections_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "news.html"
    path.write_text("<html><body><h1>News</h1><p>Nothing to see in 2024.5 here.</p></body></html>")
    with pytest.raises(SourceParseError) as err:
        parse_html(path, "osha-1926")
    assert err.value.path == str(path)
    assert "no regulation sections found" in str(err.value)
    assert "\n" not in str(err.value)


def test_parse_html_without_sections_from_text_names_the_url() -> None:
    with pytest.raises(SourceParseError) as err:
        parse_html("<h1>1926.502 is cited</h1>", "osha-1926", source_url=OSHA_URL)
    assert err.value.path == OSHA_URL
