"""The plain-torch BERT encoder gives the vectors sentence-transformers gives: bit for bit one text at a
time, and within float rounding (1e-6) in batches, which it cuts by length so that a long text does not pad
short ones; other model folders fall back to sentence-transformers."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from bifrost.core.bert_encoder import BertEncoder, load_bert_encoder
from bifrost.core.embeddings import SentenceTransformerEmbedder, packaged_model_path

TEXTS = [
    "How to protect excavation work from rainstorm hazard?",
    "guardrail system",
    "a",
    "",
    "Can a warning line plus a personal fall arrest system be used for all leading-edge work?",
    "Employees shall not work in excavations in which there is accumulated water "
    * 30,  # truncated at 256 tokens
    "§ 1926.502(b)(1) Top edge height of top rails, or equivalent guardrail system members, shall be 42 "
    "inches.",
    "ÜNICODE naïve café – “quotes”",
]


@pytest.fixture(scope="module")
def st_model():
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    return SentenceTransformer(str(packaged_model_path()), device="cpu")


@pytest.fixture(scope="module")
def encoder() -> BertEncoder:
    enc = load_bert_encoder(str(packaged_model_path()))
    assert enc is not None
    return enc


@pytest.mark.parametrize("batch_size", [1, 3, 64])
def test_vectors_agree_with_sentence_transformers_in_any_batches(st_model, encoder, batch_size):
    expected = st_model.encode(
        TEXTS,
        batch_size=batch_size,
        convert_to_numpy=True,
        normalize_embeddings=True,
        show_progress_bar=False,
    )
    got = encoder.encode(TEXTS, batch_size=batch_size)
    assert got.dtype == np.float32 and got.shape == expected.shape == (len(TEXTS), 384)
    assert np.allclose(got, expected, atol=1e-6)


def test_a_long_text_is_batched_apart_from_short_ones(encoder):
    from bifrost.core.encoder_batches import length_batches

    assert length_batches([200, 5, 6, 180, 4], 64) == [[0, 3], [2, 1, 4]]
    long_first = encoder.encode([TEXTS[5], "guardrail system"])
    assert np.array_equal(long_first[1], encoder.encode(["guardrail system"])[0])


def test_single_questions_are_bit_identical(st_model, encoder):
    for text in TEXTS:
        assert np.array_equal(
            encoder.encode([text]), st_model.encode([text], convert_to_numpy=True, normalize_embeddings=True)
        )


def test_embedder_uses_the_plain_encoder_by_default_and_both_runtimes_agree():
    fast = SentenceTransformerEmbedder(num_threads=1)
    slow = SentenceTransformerEmbedder(num_threads=1, runtime="sentence-transformers")
    a, b = fast.embed(TEXTS), slow.embed(TEXTS)
    assert isinstance(fast._model, BertEncoder) and not isinstance(slow._model, BertEncoder)
    assert fast.dim == slow.dim == 384 and np.allclose(a, b, atol=1e-6)


def test_unknown_runtime_is_rejected():
    with pytest.raises(ValueError, match="embedding runtime"):
        SentenceTransformerEmbedder(runtime="tensorflow")


def test_a_folder_that_is_not_plain_mean_pooled_bert_is_left_to_sentence_transformers(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(packaged_model_path(), folder)
    assert load_bert_encoder(str(folder)) is not None
    pooling = folder / "1_Pooling" / "config.json"
    cfg = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**cfg, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}))
    assert load_bert_encoder(str(folder)) is None
    assert load_bert_encoder(str(tmp_path / "missing")) is None


def test_a_folder_saved_by_sentence_transformers_6_is_read_and_bit_identical(st_model, tmp_path):
    """A fine-tuned encoder is saved in the newer layout (module paths, "pooling_mode": "mean", the length
    limit in the tokenizer config); the plain encoder reads it, so an adapted encoder loads as fast."""
    from sentence_transformers import SentenceTransformer

    folder = tmp_path / "saved"
    st_model.save(str(folder))
    assert "pooling_mode" in json.loads((folder / "1_Pooling" / "config.json").read_text())
    reloaded = SentenceTransformer(str(folder), device="cpu")  # as sentence-transformers reads the new layout
    enc = load_bert_encoder(str(folder))
    assert enc is not None and reloaded.max_seq_length == 256
    for batch_size in (1, 64):
        expected = reloaded.encode(
            TEXTS,
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        assert np.allclose(enc.encode(TEXTS, batch_size=batch_size), expected, atol=1e-6)


def test_a_folder_with_a_prompt_or_other_pooling_in_the_newer_layout_is_left_to_sentence_transformers(
    st_model, tmp_path
):
    folder = tmp_path / "saved"
    st_model.save(str(folder))
    pooling = folder / "1_Pooling" / "config.json"
    cfg = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**cfg, "pooling_mode": "cls"}))
    assert load_bert_encoder(str(folder)) is None
    pooling.write_text(json.dumps(cfg))
    st_cfg = folder / "config_sentence_transformers.json"
    st_cfg.write_text(
        json.dumps({**json.loads(st_cfg.read_text()), "prompts": {"query": "query: ", "document": ""}})
    )
    assert load_bert_encoder(str(folder)) is None
