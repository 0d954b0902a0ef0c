"""The OSH Act as a corpus: its JSON of sections read into sections and nested subdivisions (subsection (a),
paragraph (1), subparagraph (A), clause (i)), the page's reading aids dropped; its citations ("section 11(c)",
"subsection (c) of section 10") parsed and resolved; other acts' sections left alone."""

from __future__ import annotations

import json

import pytest

from bifrost.core.errors import CitationError, SourceParseError
from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.jurisdictions.us_statute.citation import StatuteGrammar, normalize
from bifrost.graph_builders.jurisdictions.us_statute.references import StatuteReferenceExtractor
from bifrost.graph_builders.jurisdictions.us_statute.statute_json import parse_statute_json

ACT = {
    "Preamble": "An Act\nTo assure safe and healthful working conditions (1)",
    "SEC. 3. Definitions": 'More...\nFor the purposes of this Act --\n(1)\nThe term "Secretary" means the '
    "Secretary.",
    "SEC. 5. Duties": "(a)\nEach employer --\n(1)\nMore...\nshall furnish a place of employment free from "
    "recognized hazards;\n(2)\nshall comply with standards.\n(b)\nEach employee shall comply.",
    "SEC. 11. Judicial Review": "(c)\n(1)\nNo person shall discharge any employee.\n(2)\nAny employee may, "
    "within thirty days, file a complaint; see subsection (a) of this section and section 2112 of title 28.\n"
    "(A)\nfirst\n(i)\nclause\n(B)\nsecond",
}


@pytest.fixture
def parsed(tmp_path):
    path = tmp_path / "act.json"
    path.write_text(json.dumps(ACT))
    return parse_statute_json(path, "osh-act")


def test_sections_and_subdivisions_nest_as_the_code_writes_them(parsed):
    by_id = {p.id: p for p in parsed.provisions}
    assert by_id["5"].kind is ProvisionKind.SECTION and by_id["5"].heading == "Duties"
    assert by_id["5(a)(1)"].parent_id == "5(a)" and by_id["5(a)(1)"].text.startswith("shall furnish")
    assert by_id["5(b)"].parent_id == "5"
    assert by_id["3(1)"].parent_id == "3"  # the definitions section opens with paragraphs
    assert by_id["11(c)(2)(A)(i)"].parent_id == "11(c)(2)(A)" and by_id["11(c)(2)(B)"].parent_id == "11(c)(2)"
    assert "More..." not in " ".join(p.text for p in parsed.provisions)
    assert by_id["Preamble"].text.endswith("(1)")  # the preamble's footnote mark is text, not a subdivision


def test_a_key_that_is_no_section_is_reported_and_a_file_of_none_is_refused(tmp_path):
    path = tmp_path / "act.json"
    path.write_text(json.dumps({"SEC. 1. Short Title": "This Act may be cited.", "Notes": "x"}))
    assert any("'Notes'" in o for o in parse_statute_json(path, "osh-act").oddities)
    path.write_text(json.dumps({"Notes": "x"}))
    with pytest.raises(SourceParseError, match="SEC"):
        parse_statute_json(path, "osh-act")


def test_citations_are_read_in_the_ways_they_are_written():
    assert normalize("section 11 (c)(1)") == "11(c)(1)" == normalize("SEC. 11(c)(1)")
    grammar = StatuteGrammar()
    assert grammar.parent("11(c)(1)") == "11(c)" and grammar.parent("11") is None
    assert grammar.compare("5(a)(2)", "5(b)") == -1 and grammar.compare("11", "9(c)") == 1
    with pytest.raises(CitationError):
        normalize("1926.451")


def test_cross_references_resolve_within_the_act_and_leave_other_acts_alone(parsed):
    known = frozenset(p.id for p in parsed.provisions)
    source = next(p for p in parsed.provisions if p.id == "11(c)(2)")
    refs = StatuteReferenceExtractor().extract(source, known)
    assert [(r.target_id, r.raw) for r in refs] == [(None, "subsection (a) of this section")]
    text = Provision(corpus="osh-act", id="9(a)", kind=ProvisionKind.PARAGRAPH, text="under section 5(a)(1)")
    assert [r.target_id for r in StatuteReferenceExtractor().extract(text, known)] == ["5(a)(1)"]
