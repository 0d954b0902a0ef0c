"""Question loaders on tiny fixtures: JSONL, ObliQA (gold resolved to UUIDs), ObliQA-MP (qrels)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.eval.questions import QuestionFileError, file_sha256, load_questions


def test_jsonl_loads_records_keeps_extra_keys_and_hash(questions_file: Path):
    qs = load_questions(questions_file)
    assert qs.format == "jsonl" and len(qs.questions) == 5
    assert qs.sha256 == file_sha256(questions_file) and len(qs.sha256) == 64
    q1 = qs.questions[0]
    assert q1.gold == ("1926.450(a)",) and q1.cited == q1.gold and q1.groups == ("L",)
    assert not qs.questions[4].answerable


def test_jsonl_extra_keys_land_in_extra(tmp_path: Path):
    p = tmp_path / "q.jsonl"
    p.write_text(json.dumps({"id": "a", "question": "x?", "gold": ["1"], "date": "2001", "tags": ["t"]}) + "\n")
    q = load_questions(p).questions[0]
    assert q.extra == {"date": "2001", "tags": ["t"]} and q.answerable


@pytest.mark.parametrize(("line", "needle"), [
    ("{not json", "line 2: invalid JSON"),
    (json.dumps({"question": "x"}), "line 2: missing key(s) id"),
    (json.dumps({"id": "b", "question": "x", "gold": [], "answerable": True}), "line 2: question 'b' is answerable but has an empty 'gold'"),
    (json.dumps({"id": "a", "question": "x", "gold": ["1"]}), "line 2: duplicate question id 'a'"),
    (json.dumps({"id": "c", "question": 5, "gold": ["1"]}), "line 2: field question"),
])
def test_jsonl_errors_name_file_and_line(tmp_path: Path, line: str, needle: str):
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps({"id": "a", "question": "ok", "gold": ["1"]}) + "\n" + line + "\n")
    with pytest.raises(QuestionFileError) as ei:
        load_questions(p)
    msg = str(ei.value)
    assert str(p) in msg and needle in msg and "\n" not in msg


def _adgm(tmp_path: Path) -> Path:
    docs = tmp_path / "documents"
    docs.mkdir()
    (docs / "1.json").write_text(json.dumps([
        {"ID": "u1", "DocumentID": 1, "PassageID": "1.1", "Passage": "Jurisdiction"},
        {"ID": "u2", "DocumentID": 1, "PassageID": "1.2", "Passage": "Some rule text."},
        {"ID": "u3", "DocumentID": 1, "PassageID": "1.2", "Passage": "Another passage with the same key."},
    ]))
    return docs


def test_obliqa_resolves_gold_to_uuids_breaking_duplicate_keys_by_text(tmp_path: Path):
    docs = _adgm(tmp_path)
    p = tmp_path / "ObliQA_dev.json"
    p.write_text(json.dumps([
        {"QuestionID": "a", "Question": "q?", "Group": 2, "Passages": [
            {"DocumentID": 1, "PassageID": "1.2", "Passage": "Another passage with the same key."},
            {"DocumentID": 1, "PassageID": "1.1", "Passage": "Jurisdiction"}]},
    ]))
    qs = load_questions(p, documents_dir=docs)
    assert qs.format == "obliqa"
    assert qs.questions[0].gold == ("u3", "u1") and qs.questions[0].groups == ("2",)


def test_obliqa_unknown_passage_is_a_one_line_error(tmp_path: Path):
    docs = _adgm(tmp_path)
    p = tmp_path / "o.json"
    p.write_text(json.dumps([{"QuestionID": "a", "Question": "q", "Group": 1,
                              "Passages": [{"DocumentID": 9, "PassageID": "9.9", "Passage": "?"}]}]))
    with pytest.raises(QuestionFileError, match=r"item 0: .*\(9, '9.9'\)"):
        load_questions(p, documents_dir=docs)


def test_obliqa_mp_takes_gold_from_qrels(tmp_path: Path):
    p = tmp_path / "ObliQA_MultiPassage_val.json"
    p.write_text(json.dumps([{"QuestionID": "a", "Question": "q?", "Group": 2,
                              "Passages": [{"DocumentID": 1, "PassageID": "1.1", "Passage": "x", "ID": "u1"}]}]))
    (tmp_path / "qrels_val.txt").write_text("a 0 u1 1\na 0 u2 1\na 0 u9 0\n")
    qs = load_questions(p)
    assert qs.format == "obliqa-mp" and qs.questions[0].gold == ("u1", "u2")


def test_bad_qrels_line_is_named(tmp_path: Path):
    p = tmp_path / "ObliQA_MultiPassage_val.json"
    p.write_text(json.dumps([{"QuestionID": "a", "Question": "q", "Passages": [{"ID": "u1"}]}]))
    (tmp_path / "qrels_val.txt").write_text("a 0 u1 1\nbroken line\n")
    with pytest.raises(QuestionFileError, match="qrels_val.txt: line 2"):
        load_questions(p)


def test_missing_file_and_unknown_shape(tmp_path: Path):
    with pytest.raises(QuestionFileError, match="no such question file"):
        load_questions(tmp_path / "nope.jsonl")
    p = tmp_path / "x.json"
    p.write_text(json.dumps([{"foo": 1}]))
    with pytest.raises(QuestionFileError, match="unknown question format"):
        load_questions(p)
