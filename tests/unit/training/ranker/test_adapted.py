"""Cross-fitted encoder adaptation: which question pairs each fold's encoder may learn from."""

from __future__ import annotations

import os

import pytest

from bifrost.training.ranker import adapted
from bifrost.training.ranker.adapted import cached_encoder, fold_pairs, prune_encoders
from bifrost.eval.splits import question_key
from bifrost.eval.splits import fold_of
from bifrost.eval.questions import Question
from bifrost.training.encoder.pairs import Pair
from bifrost.training.encoder.train import CARD

DOCS = {f"p{i}": f"Provision {i} says something specific about topic {i}." for i in range(12)}
RANKER = [
    Question(id=f"q{i}", question=f"What does provision {i} require?", gold=(f"p{i}",)) for i in range(12)
]


def by_fold(q: Question) -> int:
    return fold_of(q.id, 3)


def test_no_fold_encoder_learns_a_question_of_the_fold_it_reads():
    pairs = fold_pairs(RANKER, RANKER, by_fold, DOCS)
    for k, fold in pairs.items():
        held = {question_key(q.question) for q in RANKER if fold_of(q.id, 3) == k}
        assert fold and not held & {question_key(p.anchor) for p in fold}
        assert len(fold) == 12 - len(held)


def test_another_set_is_used_whole_except_texts_that_repeat_a_held_question():
    other = [
        Question(id="o1", question="  what does PROVISION 0 require? ", gold=("p0",)),
        Question(id="o2", question="Which rule covers topic 5?", gold=("p5",)),
        Question(id="o3", question="Unanswerable here?", answerable=False),
    ]
    pairs = fold_pairs(RANKER, other, by_fold, DOCS)
    k0 = fold_of("q0", 3)
    assert [p.anchor for p in pairs[k0]] == ["Which rule covers topic 5?"]
    assert all(len(pairs[k]) == 2 for k in pairs if k != k0)  # o1 and o2; never the unanswerable one


def test_folds_may_be_question_sets_so_no_encoder_reads_a_set_it_learned_from():
    sets = {q.id: ("letters" if int(q.id[1:]) < 6 else "site") for q in RANKER}
    pairs = fold_pairs(RANKER, RANKER, lambda q: sets[q.id], DOCS)
    assert set(pairs) == {"letters", "site"}
    assert {p.anchor for p in pairs["site"]} == {q.question for q in RANKER if sets[q.id] == "letters"}


def test_encoder_questions_without_gold_text_in_the_corpus_are_refused_in_one_line():
    elsewhere = [Question(id="x1", question="What does rule 9 say?", gold=("other-corpus-9",))]
    with pytest.raises(
        ValueError, match="no --encoder-questions question outside fold 1/3 has a gold provision"
    ):
        fold_pairs(RANKER, elsewhere, lambda q: "fold 1/3", DOCS)


def test_with_a_ranking_every_fold_pair_carries_the_best_non_gold_hit_as_hard_negative():
    def ranked(q: str) -> list[str]:
        i = int(q.split()[3])
        return [f"p{i}", f"p{(i + 1) % 12}"]  # gold first, then a neighbour

    for fold in fold_pairs(RANKER, RANKER, by_fold, DOCS, ranked).values():
        for p in fold:
            i = int(p.anchor.split()[3])
            assert p.positive == DOCS[f"p{i}"] and p.negative == DOCS[f"p{(i + 1) % 12}"]


def test_pruning_keeps_the_most_recently_used_encoders_and_deletes_the_others_embeddings(tmp_path):
    cache = tmp_path / "index" / "encoders"
    for age, key in enumerate(["newest", "newer", "older", "oldest"]):
        (cache / key).mkdir(parents=True)
        (cache / key / CARD).write_text("{}")
        (tmp_path / "index" / f"dense-{key}-v1-docs.npy").write_bytes(b"x")
        os.utime(cache / key, (1_000_000 - age, 1_000_000 - age))
    (cache / "unfinished.tmp").mkdir()  # a training in progress is not an encoder yet
    (tmp_path / "index" / "dense-all-MiniLM-L6-v2-docs.npy").write_bytes(b"x")

    assert sorted(prune_encoders(cache, keep=2)) == ["older", "oldest"]
    assert sorted(p.name for p in cache.iterdir()) == ["newer", "newest", "unfinished.tmp"]
    assert sorted(p.name for p in (tmp_path / "index").glob("*.npy")) == [
        "dense-all-MiniLM-L6-v2-docs.npy",
        "dense-newer-v1-docs.npy",
        "dense-newest-v1-docs.npy",
    ]


def test_a_reused_encoder_counts_as_recently_used(tmp_path, monkeypatch):
    trained: list[int] = []

    def fake_fit(pairs, base_model, folder):
        trained.append(len(pairs))
        folder.mkdir(parents=True)
        (folder / CARD).write_text("{}")

    monkeypatch.setattr(adapted, "fit_and_record", fake_fit)
    pairs = [Pair("question", "What does provision 1 require?", DOCS["p1"])]
    folder = cached_encoder("base", pairs, tmp_path, lambda _m: None)
    os.utime(folder, (1_000, 1_000))
    assert cached_encoder("base", pairs, tmp_path, lambda _m: None) == folder
    assert trained == [1] and folder.stat().st_mtime > 1_000
