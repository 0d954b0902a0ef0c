"""Reading precedent files: JSONL or CSV; a bad line is named by file, line and field and the rest is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.core.errors import BifrostError
from bifrost.graph_builders.precedents.read import read_precedent_file

GOOD = {
    "id": "loi-1",
    "title": "Hard hats near cranes.",
    "date": "2001-02-03",
    "url": "https://x/1",
    "cites": ["1926.100(a)", "1926 Subpart L"],
}


def write_jsonl(tmp_path: Path, rows: list[object]) -> Path:
    p = tmp_path / "letters.jsonl"
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return p


def test_a_jsonl_file_is_read_with_its_citations(tmp_path):
    read = read_precedent_file(write_jsonl(tmp_path, [GOOD]))
    assert read.errors == []
    (row,) = read.rows
    assert (row.id, row.date, row.cites) == ("loi-1", "2001-02-03", ("1926.100(a)", "1926 Subpart L"))


@pytest.mark.parametrize(
    "bad, field",
    [
        ({**GOOD, "id": ""}, "'id'"),
        ({"id": "x", "cites": []}, "'title'"),
        ({**GOOD, "date": "3 Feb 2001"}, "'date'"),
        ({**GOOD, "cites": "[1, 2]"}, "'cites'"),
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_a_bad_line_is_named_and_the_rest_is_read(tmp_path, bad, field):
    read = read_precedent_file(write_jsonl(tmp_path, [GOOD, bad, {**GOOD, "id": "loi-2"}]))
    assert [r.id for r in read.rows] == ["loi-1", "loi-2"]
    (line,) = read.errors
    assert line.startswith("letters.jsonl, line 2:") and field in line


def test_a_csv_file_separates_citations_by_semicolons(tmp_path):
    p = tmp_path / "faq.csv"
    p.write_text(
        "id,question,date,issuer,cites\nfaq-1,Do I need a guardrail at 6 feet?,2020-01-01,Team,"
        "1926.501(b)(1); 1926.502(b)\nfaq-2,,2020-01-01,Team,1926.501\n",
        encoding="utf-8",
    )
    read = read_precedent_file(p)
    assert [r.id for r in read.rows] == ["faq-1"] and read.rows[0].cites == ("1926.501(b)(1)", "1926.502(b)")
    assert read.rows[0].title.startswith("Do I need") and read.errors == [
        "faq.csv, line 3: field 'title' (or 'question') is missing"
    ]


def test_a_later_line_with_the_same_id_replaces_the_earlier(tmp_path):
    read = read_precedent_file(write_jsonl(tmp_path, [GOOD, {**GOOD, "title": "Edited."}]))
    assert [r.title for r in read.rows] == ["Edited."]


@pytest.mark.parametrize(
    "name, says", [("missing.jsonl", "no such precedent file"), ("letters.txt", "is .jsonl or .csv")]
)
def test_a_file_that_cannot_be_read_is_one_line(tmp_path, name, says):
    if name.endswith(".txt"):
        (tmp_path / name).write_text("x")
    with pytest.raises(BifrostError, match=says):
        read_precedent_file(tmp_path / name)
