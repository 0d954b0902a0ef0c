"""The embedding model on onnxruntime: an export made once from sentence-transformers' own module gives
sentence-transformers' vectors within float rounding, only folders it runs exactly are exported, a home with
an export encodes with it (and stores its vectors under another key), and a missing, corrupt or outdated
export is one error naming the command that makes it again."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from bifrost.core.embeddings import SentenceTransformerEmbedder, packaged_model_path, raw_vectors
from bifrost.core.errors import ModelUnavailableError
from bifrost.core.onnx_encoder import OnnxEncoder, export_onnx, export_paths, exportable, usable_cores

TEXTS = [
    "Is fall protection required for painters on a 14 ft frame scaffold? They are not erecting it." * 4,
    "guardrail system",
    "a",
    "",
    "trench box",
    "Employees shall not work in excavations in which there is accumulated water " * 30,  # cut at 256 tokens
    "ÜNICODE naïve café – “quotes”",
]


@pytest.fixture(scope="module")
def st_model():
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(1)
    return SentenceTransformer(str(packaged_model_path()), device="cpu")


def st_vectors(model, texts: list[str], batch_size: int = 64) -> np.ndarray:
    return raw_vectors(model, texts, batch_size)  # as the embedder reads sentence-transformers


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("onnx")
    export_onnx(packaged_model_path(), folder)
    return folder


def test_the_export_gives_sentence_transformers_vectors_in_any_batches(exported, st_model):
    onnx = OnnxEncoder(packaged_model_path(), exported)
    got = onnx.encode(TEXTS)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.allclose(got, st_vectors(st_model, TEXTS), atol=1e-6)
    one_by_one = np.vstack([onnx.encode([t]) for t in TEXTS])
    assert np.allclose(got, one_by_one, atol=1e-6)


def test_batches_side_by_side_give_the_same_vectors_as_one_after_another(exported):
    texts = [f"guardrail {i} " * (1 + i % 40) for i in range(150)]  # several batches of like length
    alone = OnnxEncoder(packaged_model_path(), exported, workers=1)
    side_by_side = OnnxEncoder(packaged_model_path(), exported, workers=3)
    assert alone.workers == 1 and side_by_side.workers == 3
    assert np.array_equal(side_by_side.encode(texts), alone.encode(texts))


def test_one_thread_per_batch_runs_a_batch_per_core_by_default(exported):
    assert OnnxEncoder(packaged_model_path(), exported).workers == usable_cores()
    assert OnnxEncoder(packaged_model_path(), exported, threads=None).workers == 1  # its own threads


def test_a_home_with_an_export_encodes_with_it_under_its_own_key(exported):
    on = SentenceTransformerEmbedder(onnx_dir=exported)
    off = SentenceTransformerEmbedder(onnx_dir=exported, runtime="torch")
    assert on.key == "all-MiniLM-L6-v2@onnx" and off.key == "all-MiniLM-L6-v2"
    assert type(on._load()).__name__ == "OnnxEncoder" and type(off._load()).__name__ == "SentenceTransformer"
    assert np.allclose(on.embed(["trench box"]), off.embed(["trench box"]), atol=1e-6)


def test_runtime_onnx_without_an_export_names_the_command(tmp_path):
    with pytest.raises(ModelUnavailableError, match="bifrost build encoder"):
        SentenceTransformerEmbedder(onnx_dir=tmp_path, runtime="onnx").embed(["x"])


def test_a_corrupt_export_is_one_error_naming_the_command(exported, tmp_path):
    copy = tmp_path / "onnx"
    shutil.copytree(exported, copy)
    onnx_path, _card = export_paths(copy, packaged_model_path())
    onnx_path.write_bytes(onnx_path.read_bytes()[:1000])
    with pytest.raises(ModelUnavailableError, match="bifrost build encoder") as e:
        SentenceTransformerEmbedder(onnx_dir=copy).embed(["x"])
    assert "\n" not in str(e.value)


def test_an_export_of_other_weights_is_refused(tmp_path):
    model = tmp_path / "model"
    shutil.copytree(packaged_model_path(), model)
    export_onnx(model, tmp_path / "onnx")
    weights = model / "model.safetensors"
    weights.write_bytes(weights.read_bytes())  # new weights file (another time): an old export is stale
    with pytest.raises(ModelUnavailableError, match="does not match"):
        OnnxEncoder(model, tmp_path / "onnx")


def test_without_an_export_the_model_loads_through_sentence_transformers(tmp_path):
    embedder = SentenceTransformerEmbedder(onnx_dir=tmp_path, num_threads=1)
    embedder.embed(["trench box"])
    assert type(embedder._model).__name__ == "SentenceTransformer" and embedder.key == "all-MiniLM-L6-v2"


def test_only_a_plain_mean_pooled_bert_folder_is_exported(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(packaged_model_path(), folder)
    assert exportable(folder)["max_seq_length"] == 256
    pooling = folder / "1_Pooling" / "config.json"
    cfg = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**cfg, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}))
    assert exportable(folder) is None
    assert exportable(tmp_path / "missing") is None
    with pytest.raises(ModelUnavailableError, match="not a plain mean-pooled BERT"):
        export_onnx(folder, tmp_path / "onnx")


def test_a_folder_saved_by_sentence_transformers_6_is_exported_and_agrees(st_model, tmp_path):
    """A fine-tuned encoder is saved in the newer layout (module paths, "pooling_mode": "mean", the length
    limit in the tokenizer config); it is exported as the packaged one is (an adapted encoder starts fast)."""
    from sentence_transformers import SentenceTransformer

    folder = tmp_path / "saved"
    st_model.save(str(folder))
    assert "pooling_mode" in json.loads((folder / "1_Pooling" / "config.json").read_text())
    assert exportable(folder)["max_seq_length"] == 256
    export_onnx(folder, tmp_path / "onnx")
    reloaded = SentenceTransformer(str(folder), device="cpu")
    got = OnnxEncoder(folder, tmp_path / "onnx").encode(TEXTS)
    assert np.allclose(got, st_vectors(reloaded, TEXTS, batch_size=1), atol=1e-6)


def test_a_folder_with_a_prompt_or_other_pooling_in_the_newer_layout_is_not_exported(st_model, tmp_path):
    folder = tmp_path / "saved"
    st_model.save(str(folder))
    pooling = folder / "1_Pooling" / "config.json"
    cfg = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**cfg, "pooling_mode": "cls"}))
    assert exportable(folder) is None
    pooling.write_text(json.dumps(cfg))
    st_cfg = folder / "config_sentence_transformers.json"
    st_cfg.write_text(
        json.dumps({**json.loads(st_cfg.read_text()), "prompts": {"query": "query: ", "document": ""}})
    )
    assert exportable(folder) is None


def test_an_unknown_runtime_is_rejected():
    with pytest.raises(ValueError, match="embedding runtime"):
        SentenceTransformerEmbedder(runtime="tensorflow")
