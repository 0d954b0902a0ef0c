"""The question sets `train ranker` reads: a question in two sets counts once, and a set whose gold the
corpus lacks is refused before any training."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.eval.question_files import load_sets
from bifrost.eval.questions import QuestionFileError


def jsonl(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_question_in_two_sets_counts_once_and_the_note_names_both_files(settings, tmp_path: Path):
    a = jsonl(tmp_path / "a.jsonl", {"id": "1", "question": "x", "gold": ["1926.450(a)"]})
    b = jsonl(
        tmp_path / "b.jsonl",
        {"id": "1", "question": "x", "gold": ["1926.450(a)"]},
        {"id": "2", "question": "y", "gold": ["1926.450(b)"]},
    )
    notes: list[str] = []
    questions, hashes = load_sets(settings, [a, b], "tiny", say=notes.append)
    assert [q.id for q in questions] == ["1", "2"] and [h["path"] for h in hashes] == [str(a), str(b)]
    assert (
        len(notes) == 1 and str(a) in notes[0] and str(b) in notes[0] and notes[0].startswith("1 question of")
    )


def test_a_set_whose_gold_the_corpus_lacks_is_refused_naming_file_line_and_id(settings, tmp_path: Path):
    bad = jsonl(
        tmp_path / "bad.jsonl",
        {"id": "1", "question": "x", "gold": ["1926.450(a)"]},
        {"id": "2", "question": "y", "gold": ["1926.451(g)"]},
    )
    with pytest.raises(
        QuestionFileError,
        match=r"bad.jsonl: line 2: question '2': gold '1926.451\(g\)' is not a provision of tiny",
    ):
        load_sets(settings, [bad], "tiny")
