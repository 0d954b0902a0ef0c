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
    p.write_text(
        json.dumps({"id": "a", "question": "x?", "gold": ["1"], "date": "2001", "tags": ["t"]}) + "\n"
    )
    q = load_questions(p).questions[0]
    assert q.extra == {"date": "2001", "tags": ["t"]} and q.answerable


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("{not json", "line 2: invalid JSON"),
        (json.dumps({"question": "x"}), "line 2: missing key(s) id"),
        (
            json.dumps({"id": "b", "question": "x", "gold": [], "answerable": True}),
            "line 2: question 'b' is answerable but has an empty 'gold'",
        ),
        (json.dumps({"id": "a", "question": "x", "gold": ["1"]}), "line 2: duplicate question id 'a'"),
        (json.dumps({"id": "c", "question": 5, "gold": ["1"]}), "line 2: field question"),
    ],
)
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
    (docs / "1.json").write_text(
        json.dumps(
            [
                {"ID": "u1", "DocumentID": 1, "PassageID": "1.1", "Passage": "Jurisdiction"},
                {"ID": "u2", "DocumentID": 1, "PassageID": "1.2", "Passage": "Some rule text."},
                {
                    "ID": "u3",
                    "DocumentID": 1,
                    "PassageID": "1.2",
                    "Passage": "Another passage with the same key.",
                },
            ]
        )
    )
    return docs


def test_obliqa_resolves_gold_to_uuids_breaking_duplicate_keys_by_text(tmp_path: Path):
    docs = _adgm(tmp_path)
    p = tmp_path / "ObliQA_dev.json"
    p.write_text(
        json.dumps(
            [
                {
                    "QuestionID": "a",
                    "Question": "q?",
                    "Group": 2,
                    "Passages": [
                        {
                            "DocumentID": 1,
                            "PassageID": "1.2",
                            "Passage": "Another passage with the same key.",
                        },
                        {"DocumentID": 1, "PassageID": "1.1", "Passage": "Jurisdiction"},
                    ],
                }
            ]
        )
    )
    qs = load_questions(p, documents_dir=docs)
    assert qs.format == "obliqa"
    assert qs.questions[0].gold == ("u3", "u1") and qs.questions[0].groups == ("2",)


def test_obliqa_unknown_passage_is_a_one_line_error(tmp_path: Path):
    docs = _adgm(tmp_path)
    p = tmp_path / "o.json"
    p.write_text(
        json.dumps(
            [
                {
                    "QuestionID": "a",
                    "Question": "q",
                    "Group": 1,
                    "Passages": [{"DocumentID": 9, "PassageID": "9.9", "Passage": "?"}],
                }
            ]
        )
    )
    with pytest.raises(QuestionFileError, match=r"item 0: .*\(9, '9.9'\)"):
        load_questions(p, documents_dir=docs)


def test_obliqa_mp_takes_gold_from_qrels(tmp_path: Path):
    p = tmp_path / "ObliQA_MultiPassage_val.json"
    p.write_text(
        json.dumps(
            [
                {
                    "QuestionID": "a",
                    "Question": "q?",
                    "Group": 2,
                    "Passages": [{"DocumentID": 1, "PassageID": "1.1", "Passage": "x", "ID": "u1"}],
                }
            ]
        )
    )
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


KNOWN = {"1926.450", "1926.450(a)", "1926.450(b)"}


def write_jsonl(path: Path, *records: dict | None) -> Path:
    """One record a line; None: a blank line (line numbers count it)."""
    path.write_text("".join(("" if r is None else json.dumps(r)) + "\n" for r in records))
    return path


def test_a_question_whose_gold_is_not_in_the_corpus_is_refused_in_one_line_naming_file_line_and_id(
    tmp_path: Path,
):
    from bifrost.eval.questions import check_gold

    for gold in ("1926.999", "1926.450(a)(1)"):  # unknown; a descendant of a stored id is not that id
        p = write_jsonl(
            tmp_path / "q.jsonl",
            {"id": "a", "question": "ok", "gold": ["1926.450(a)"]},
            None,
            {"id": "b", "question": "x", "gold": [gold]},
        )
        with pytest.raises(QuestionFileError) as ei:
            check_gold(load_questions(p), KNOWN, "tiny")
        assert str(ei.value).startswith(
            f"{p}: line 3: question 'b': gold '{gold}' is not a provision of tiny"
        )
        assert "\n" not in str(ei.value)


def test_an_answerable_question_without_gold_is_refused_naming_its_item():
    from bifrost.eval.questions import Question, QuestionSet, check_gold

    qset = QuestionSet(
        path="mp.json",
        format="obliqa-mp",
        sha256="0",
        questions=[Question(id="x", question="q", gold=("1926.450",)), Question(id="y", question="q")],
    )
    with pytest.raises(
        QuestionFileError, match=r"^mp.json: item 1: question 'y' is answerable but has no gold"
    ):
        check_gold(qset, KNOWN, "tiny")


def test_a_question_with_part_of_its_gold_in_the_corpus_is_kept_with_a_note(tmp_path: Path):
    from bifrost.eval.questions import check_gold

    p = write_jsonl(tmp_path / "q.jsonl", {"id": "a", "question": "x", "gold": ["1926.450(a)", "1926.556"]})
    notes: list[str] = []
    check_gold(load_questions(p), KNOWN, "tiny", say=notes.append)
    assert notes == [
        f"{p}: line 1: question 'a': gold '1926.556' is not a provision of tiny; "
        "kept, as gold no system can retrieve"
    ]


def test_an_identical_question_in_two_sets_counts_once_with_a_note(tmp_path: Path):
    from bifrost.eval.questions import merge_sets

    a = write_jsonl(
        tmp_path / "a.jsonl",
        {"id": "1", "question": "x", "gold": ["1926.450"]},
        {"id": "2", "question": "y", "gold": ["1926.450"]},
    )
    b = write_jsonl(
        tmp_path / "b.jsonl",
        {"id": "2", "question": "y", "gold": ["1926.450(b)"]},
        {"id": "3", "question": "z", "gold": ["1926.450"]},
    )
    notes: list[str] = []
    merged = merge_sets([load_questions(a), load_questions(b)], say=notes.append)
    assert [(q.id, Path(s.path).name) for q, s in merged] == [
        ("1", "a.jsonl"),
        ("2", "a.jsonl"),
        ("3", "b.jsonl"),
    ]
    assert merged[1][0].gold == ("1926.450",)
    assert notes == [
        f"1 question of {b} is also in {a} (same id and text): counted once, from {a} "
        "(1 with other gold there)"
    ]


def test_one_id_with_two_texts_in_two_sets_is_an_error_naming_both_files_and_the_id(tmp_path: Path):
    from bifrost.eval.questions import merge_sets

    a = write_jsonl(tmp_path / "a.jsonl", {"id": "7", "question": "x", "gold": ["1926.450"]})
    b = write_jsonl(tmp_path / "b.jsonl", {"id": "7", "question": "another x", "gold": ["1926.450"]})
    with pytest.raises(QuestionFileError) as ei:
        merge_sets([load_questions(a), load_questions(b)])
    assert (
        str(ei.value)
        == f"{b}: line 1: question id '7' is also in {a} with another text; give one of them a new id"
    )
