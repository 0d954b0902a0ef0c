"""Training smoke test: the mini corpus's free pairs fine-tune a loadable model that differs from the base."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.embeddings import DEFAULT_MODEL, SentenceTransformerEmbedder, resolve_model
from bifrost.core.settings import Settings
from bifrost.retrieval.channels.dense import cache_path, model_version
from bifrost.retrieval.channels.documents import Documents
from bifrost.training.encoder.pairs import Pair
from bifrost.training.encoder.train import CARD, _batches, encoder_dir, fit_and_record, train_encoder
from tests.unit.mini_corpus import MINI, build_corpus


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("encoder")
    settings = Settings(home=root / "home")
    bf = Bifrost(settings)
    build_corpus(bf, "mini", MINI)
    bf.close()
    return settings, train_encoder(settings, "mini", max_pairs=50, batch_size=8)


def test_training_saves_a_loadable_model_and_its_card(trained):
    settings, report = trained
    folder = encoder_dir(settings.home, "mini")
    assert report.path == str(folder) and report.steps >= 1
    card = json.loads((folder / CARD).read_text())
    assert card["base_model"] == DEFAULT_MODEL and card["pairs"] == report.pairs
    assert 0 < sum(report.pairs.values()) <= 50
    texts = ["Guardrail systems shall be 42 inches high.", "What is a leading edge?"]
    tuned = SentenceTransformerEmbedder(str(folder)).embed(texts)
    base = SentenceTransformerEmbedder(DEFAULT_MODEL).embed(texts)
    assert tuned.shape == base.shape
    from sentence_transformers import SentenceTransformer

    assert (
        SentenceTransformer(str(folder)).max_seq_length
        == SentenceTransformer(resolve_model(DEFAULT_MODEL)).max_seq_length
    )
    assert not np.allclose(tuned, base, atol=1e-4)


def test_dense_cache_of_a_model_folder_changes_when_the_model_is_retrained(trained):
    settings, report = trained
    docs = Documents(ids=["a"], texts=["x"])
    before = cache_path(settings.home, "mini", report.path, docs)
    weights = next(iter(sorted(encoder_dir(settings.home, "mini").glob("*.safetensors"))))
    st = weights.stat()
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert cache_path(settings.home, "mini", report.path, docs) != before
    assert model_version(DEFAULT_MODEL) == ""


def test_no_batch_holds_a_text_twice_so_no_negative_is_another_pairs_positive():
    pairs = [Pair("question", f"question {i}", f"text {i}", f"text {(i + 1) % 12}") for i in range(12)]
    batches = _batches(pairs, batch_size=4, epochs=2, seed=1)
    for batch in batches:
        texts = [t for p in batch for t in (p.anchor, p.positive, p.negative)]
        assert len(texts) == len(set(texts))
    assert sum(len(b) for b in batches) <= 24 and all(len(b) >= 2 for b in batches)


def test_pairs_with_hard_negatives_train_a_model_and_the_card_counts_them(tmp_path):
    pairs = [
        Pair(
            "question",
            f"How high must guardrail {i} be?",
            f"Guardrail {i} shall be {40 + i} inches high.",
            f"Toeboard {i} shall be {3 + i} inches high.",
        )
        for i in range(8)
    ]
    report = fit_and_record(pairs, DEFAULT_MODEL, tmp_path / "enc", batch_size=4)
    card = json.loads((tmp_path / "enc" / CARD).read_text())
    assert report.steps == 2 and card["hard_negatives"] == 8
    plain = fit_and_record(
        [Pair(p.kind, p.anchor, p.positive) for p in pairs], DEFAULT_MODEL, tmp_path / "plain", batch_size=4
    )
    # same first batch and weights: scoring the negatives too adds candidates, so the first loss is higher
    assert report.mean_loss_first > plain.mean_loss_first
