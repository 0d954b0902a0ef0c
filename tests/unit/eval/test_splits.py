"""Validation splits: k folds by id hash, and leave-one-set-out."""

from __future__ import annotations

import pytest

from bifrost.eval.splits import fold_of, k_fold, leave_one_set_out


def test_k_fold_tests_every_item_once_and_never_trains_on_it():
    ids = [f"q{i}" for i in range(50)]
    splits = k_fold(ids, 5)
    tested = [i for s in splits for i in s.test]
    assert sorted(tested) == list(range(50))
    for s in splits:
        assert not set(s.train) & set(s.test) and len(s.train) + len(s.test) == 50


def test_k_fold_is_the_id_hash_fold_the_same_on_every_run():
    splits = k_fold(["a", "b", "c", "d", "e", "f"], 3)
    for s in splits:
        k = int(s.name.split()[1].split("/")[0]) - 1
        assert all(fold_of(["a", "b", "c", "d", "e", "f"][i], 3) == k for i in s.test)


def test_k_fold_needs_two_folds():
    with pytest.raises(ValueError, match="at least 2 folds"):
        k_fold(["a"], 1)


def test_leave_one_set_out_tests_each_set_on_a_model_of_the_others():
    sources = ["letters", "letters", "site", "natural", "site"]
    splits = {s.name: s for s in leave_one_set_out(sources)}
    assert list(splits) == ["letters", "site", "natural"]
    assert splits["site"].test == (2, 4) and splits["site"].train == (0, 1, 3)


def test_one_set_cannot_be_left_out():
    assert leave_one_set_out(["only", "only"]) == []


def test_a_held_out_question_in_the_training_questions_is_refused_whatever_its_case_and_spacing():
    from bifrost.eval.splits import refuse_overlap

    refuse_overlap(["Who inspects the trench?"], [("site", "s1", "Who signs the permit?")])
    with pytest.raises(ValueError, match="held-out set site: question 's2' is also a training question"):
        refuse_overlap(["Who inspects the trench?"], [("site", "s2", "who  inspects the TRENCH? ")])
