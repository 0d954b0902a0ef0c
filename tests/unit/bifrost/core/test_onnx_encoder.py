"""The embedding model on onnxruntime: an export made once from the model's own weights gives the torch
encoder's vectors within float rounding, a home with an export encodes with it (and stores its vectors under
another key), and a missing, corrupt or outdated export is one error naming the command that makes it
again."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from bifrost.core.bert_encoder import load_bert_encoder
from bifrost.core.embeddings import SentenceTransformerEmbedder, packaged_model_path
from bifrost.core.errors import ModelUnavailableError
from bifrost.core.onnx_encoder import OnnxEncoder, export_onnx, export_paths, usable_cores

TEXTS = [
    "Is fall protection required for painters on a 14 ft frame scaffold? They are not erecting it." * 4,
    "guardrail system",
    "a",
    "",
    "trench box",
    "Employees shall not work in excavations in which there is accumulated water " * 30,
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("onnx")
    export_onnx(packaged_model_path(), folder)
    return folder


def test_the_export_gives_the_torch_encoders_vectors_in_any_batches(exported):
    onnx = OnnxEncoder(packaged_model_path(), exported)
    torch_enc = load_bert_encoder(str(packaged_model_path()))
    got = onnx.encode(TEXTS)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.allclose(got, torch_enc.encode(TEXTS), atol=1e-6)
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
    assert type(on._load()).__name__ == "OnnxEncoder" and type(off._load()).__name__ == "BertEncoder"
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
