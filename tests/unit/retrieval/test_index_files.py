"""Fast start: the indexes a new process maps from files rank exactly as the indexes built in
memory from SQL, and the files are rewritten when missing or stale (never half-written)."""

from __future__ import annotations

import logging
import shutil

import numpy as np
import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.retrieval.channels.bm25 import Bm25Ranker
from bifrost.retrieval.channels.documents import index_folder
from tests.unit.mini_corpus import MINI, QUESTIONS, build_corpus


def ranked(bf: Bifrost) -> list[tuple]:
    """Everything a question's answer is made of: ranked ids with scores, cited ids, refusal."""
    out = []
    for q in QUESTIONS:
        a = bf.ask(q, "mini")
        out.append(
            (
                [(it.id, it.score, it.via) for it in a.retrieved],
                [c.id for c in a.citations],
                a.refused,
                a.text,
            )
        )
    return out


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    h = tmp_path_factory.mktemp("fast-start")
    bf = Bifrost(Settings(home=h))
    try:
        build_corpus(bf, "mini", MINI)
    finally:
        bf.close()
    return h


def fresh(home) -> Bifrost:
    return Bifrost(Settings(home=home))


def test_a_build_writes_every_index_file(home):
    names = sorted(
        p.name.split("-")[0] for p in index_folder(home, "mini").iterdir() if not p.name.startswith(".")
    )
    # dense, sentences: matrix and its rows
    assert names == ["bm25", "dense", "dense", "eng", "sentences", "sentences"]


def test_answers_quote_with_the_stored_sentence_vectors_and_answer_alike_without_them(home):
    from bifrost.retrieval.answer.sentence_vectors import StoredSentences

    mapped = fresh(home)
    embedder = mapped.pipeline.answer_embedder("mini")
    assert isinstance(embedder, StoredSentences) and isinstance(embedder.stored.matrix, np.memmap)
    with_vectors = ranked(mapped)
    mapped.close()
    plain = fresh(home)
    plain.pipeline._sentences["mini"] = plain.resources.embedder  # as a home built before they were stored
    assert ranked(plain) == with_vectors
    plain.close()


def test_memory_mapped_indexes_rank_exactly_as_indexes_built_in_memory(home, caplog):
    shutil.rmtree(index_folder(home, "mini"))
    built = fresh(home)
    with caplog.at_level(logging.INFO):
        in_memory = ranked(built)  # no files: everything decoded and indexed from SQL, then saved
    built.close()
    assert "missing or stale" in caplog.text
    mapped_bf = fresh(home)
    mapped = ranked(mapped_bf)
    parts = mapped_bf.pipeline.parts("mini")
    assert isinstance(parts.channels.index.entity_matrix, np.memmap)
    assert isinstance(parts.channels.index.triple_matrix, np.memmap)
    assert isinstance(parts.channels.index.parts().vectors, np.memmap)  # triples match over the saved parts
    assert isinstance(parts.channels.dense._matrix, np.memmap)
    assert isinstance(parts.channels.bm25._bm25.scores["data"], np.memmap)
    mapped_bf.close()
    assert mapped == in_memory


def test_bm25_loaded_from_its_folder_scores_every_document_as_a_fresh_index(home):
    settings = Settings(home=home)
    saved, fresh_index = Bm25Ranker(settings), Bm25Ranker(settings)
    saved.warm_up("mini")
    fresh_index.warm_up("mini", persist=False)
    for q in QUESTIONS:
        assert np.array_equal(saved.score_all(q), fresh_index.score_all(q))
        assert saved.search(q, 5) == fresh_index.search(q, 5)


def test_an_unchanged_rebuild_keeps_the_entity_files_and_a_changed_one_replaces_them(home):
    before = {p.name for p in index_folder(home, "mini").glob("eng-*")}
    bf = fresh(home)
    try:
        bf.build_entities("mini", "offline")  # nothing changed: nothing written, same generation
        same = {p.name for p in index_folder(home, "mini").glob("eng-*")}
        p = next(p for p in bf.sql.provisions("mini") if "guardrail" in p.text)
        with bf.sql.session() as s:
            bf.sql.upsert_provisions(
                s, [p.model_copy(update={"text": p.text + " Toeboards are required too."})]
            )
        bf.build_entities("mini", "offline")
    finally:
        bf.close()
    after = {p.name for p in index_folder(home, "mini").glob("eng-*")}
    assert len(before) == len(after) == 1 and same == before != after


def test_a_write_that_fails_leaves_no_index_and_the_next_start_rebuilds_it(home, monkeypatch):
    shutil.rmtree(index_folder(home, "mini"))
    bf = fresh(home)
    with monkeypatch.context() as m:

        def killed(*_a, **_k):
            raise OSError("disk full")

        m.setattr("bifrost.retrieval.channels.entity_index.np.save", killed)
        answer = bf.ask(QUESTIONS[0], "mini")  # still answers, from SQL
    bf.close()
    assert answer.citations
    folder = index_folder(home, "mini")
    assert not list(folder.glob("eng-*")) and not list(folder.glob(".*"))
    again = fresh(home)
    assert again.ask(QUESTIONS[0], "mini").citations == answer.citations
    again.close()
    assert len(list(folder.glob("eng-*"))) == 1


def test_an_entity_index_saved_before_triple_parts_gets_them_added_and_ranks_the_same(home):
    bf = fresh(home)
    before = ranked(bf)
    bf.close()
    folder = next(index_folder(home, "mini").glob("eng-*"))
    for name in ("triple_parts.npy", "triple_part_rows.npy"):
        (folder / name).unlink()
    older = fresh(home)
    assert ranked(older) == before
    older.close()
    assert (folder / "triple_parts.npy").is_file() and (folder / "triple_part_rows.npy").is_file()
