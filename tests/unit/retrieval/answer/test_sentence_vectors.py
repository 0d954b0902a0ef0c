"""The stored sentence vectors: answers read them instead of encoding, stay right when they are stale or
broken, and a rebuild encodes only what is new."""

from __future__ import annotations

import json
import logging
import zlib
from pathlib import Path

import numpy as np
import pytest

from bifrost.core.types import Provision, ProvisionKind
from bifrost.retrieval.answer.sentence_vectors import StoredSentences, corpus_sentences, load, names, write
from bifrost.core.sentences import sentences

DIM = 32
MODEL = "all-MiniLM-L6-v2"


class CountingEmbedder:
    """Unit vectors from hashed words; counts the texts it was asked to encode."""

    dim = DIM

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.encoded += texts
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, zlib.crc32(w.encode()) % DIM] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def provision(pid: str, text: str) -> Provision:
    return Provision(corpus="c", id=pid, kind=ProvisionKind.PARAGRAPH, text=text)


RULES = [
    provision("1(a)", "Guardrails shall be 42 inches high. Toeboards are required."),
    provision("1(b)", "Nets shall be inspected weekly; and after any impact."),
    provision("1(c)", "Guardrails shall be 42 inches high."),
]


def test_every_distinct_sentence_is_listed_once_in_reading_order():
    assert corpus_sentences(RULES, sentences) == [
        "Guardrails shall be 42 inches high.",
        "Toeboards are required.",
        "Nets shall be inspected weekly;",
        "and after any impact.",
    ]


def test_stored_sentences_are_read_not_encoded_and_give_the_same_vectors(tmp_path: Path):
    texts = corpus_sentences(RULES, sentences)
    write(tmp_path, MODEL, texts, CountingEmbedder().embed)
    model = CountingEmbedder()
    embedder = StoredSentences(model, load(tmp_path, MODEL))
    asked = [
        "Toeboards are required.",
        "How high must a guardrail be?",
        "Guardrails shall be 42 inches high.",
    ]
    assert np.allclose(embedder.embed(asked), CountingEmbedder().embed(asked))
    assert model.encoded == ["How high must a guardrail be?"]  # only the text that is not stored


def test_a_rebuild_encodes_only_new_sentences_and_removes_the_old_matrix(tmp_path: Path):
    texts = corpus_sentences(RULES, sentences)
    assert write(tmp_path, MODEL, texts, CountingEmbedder().embed) == 4
    old = sorted(tmp_path.glob("sentences-*.npy"))
    assert write(tmp_path, MODEL, texts, CountingEmbedder().embed) == 0  # unchanged: nothing written
    model = CountingEmbedder()
    assert write(tmp_path, MODEL, [*texts, "Ladders shall be inspected."], model.embed) == 1
    assert model.encoded == ["Ladders shall be inspected."]
    assert len(load(tmp_path, MODEL)) == 5
    assert [p.name for p in tmp_path.glob("sentences-*.npy")] != [p.name for p in old] and len(
        list(tmp_path.glob("*.npy"))
    ) == 1


def test_another_models_vectors_are_neither_read_nor_removed(tmp_path: Path):
    write(tmp_path, MODEL, ["A."], CountingEmbedder().embed)
    write(tmp_path, f"{MODEL}-b", ["B."], CountingEmbedder().embed)  # a model whose name starts alike
    write(tmp_path, MODEL, ["A.", "C."], CountingEmbedder().embed)
    assert set(load(tmp_path, f"{MODEL}-b")) == {"B."} and set(load(tmp_path, MODEL)) == {"A.", "C."}
    assert load(tmp_path, "other-model") is None


def test_a_broken_or_mismatched_file_is_ignored_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    write(tmp_path, MODEL, ["A.", "B."], CountingEmbedder().embed)
    listing, _ = names(tmp_path, MODEL)
    meta = json.loads(listing.read_text())
    listing.write_text(json.dumps({**meta, "texts": ["A."]}))  # one text for two rows
    with caplog.at_level(logging.WARNING):
        assert load(tmp_path, MODEL) is None
    listing.write_text("{not json")
    with caplog.at_level(logging.WARNING):
        assert load(tmp_path, MODEL) is None
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 2
    assert write(tmp_path, MODEL, ["A.", "B."], CountingEmbedder().embed) == 2  # rebuilt from scratch
    assert set(load(tmp_path, MODEL)) == {"A.", "B."}


def test_an_empty_list_asks_the_model_for_its_empty_rows(tmp_path: Path):
    write(tmp_path, MODEL, ["A."], CountingEmbedder().embed)
    embedder = StoredSentences(CountingEmbedder(), load(tmp_path, MODEL))
    assert embedder.embed([]).shape == (0, DIM) and embedder.dim == DIM
    with pytest.raises(TypeError):
        embedder.embed("A.")
