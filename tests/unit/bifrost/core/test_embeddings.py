"""The sentence-transformers embedder loads the packaged model lazily and never downloads."""

import numpy as np
import pytest

from bifrost.core.embeddings import (
    SentenceTransformerEmbedder,
    l2_normalize,
    packaged_model_path,
    resolve_model,
)
from bifrost.core.errors import ModelUnavailableError


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(num_threads=1)


def test_constructor_loads_no_model():
    e = SentenceTransformerEmbedder("no-such-org/no-such-model", offline=True)
    assert e._model is None  # (isinstance against Embedder would read .dim and load it on Python 3.11)


def test_default_name_resolves_to_the_packaged_model():
    assert packaged_model_path() is not None
    assert resolve_model("all-MiniLM-L6-v2") == str(packaged_model_path())
    assert resolve_model("sentence-transformers/all-MiniLM-L6-v2") == str(packaged_model_path())


def test_unknown_model_offline_is_model_unavailable():
    with pytest.raises(ModelUnavailableError) as info:
        SentenceTransformerEmbedder("no-such-org/no-such-model", offline=True).embed(["x"])
    assert "no-such-org/no-such-model" in str(info.value) and "HF_HUB_OFFLINE" in str(info.value)


def test_local_folder_without_model_files_is_model_unavailable(tmp_path):
    with pytest.raises(ModelUnavailableError):
        resolve_model(str(tmp_path))


def test_real_model_plural_variants_are_close_and_dim_is_384(embedder):
    v = embedder.embed(["guardrail system", "guardrail systems"])
    assert v.shape == (2, 384) and v.dtype == np.float32 and embedder.dim == 384
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert float(v[0] @ v[1]) > 0.9


def test_cache_returns_identical_vectors_and_handles_repeats(embedder):
    first = embedder.embed(["safety net system", "safety net system", "lanyard"])
    again = embedder.embed(["lanyard", "safety net system"])
    assert np.array_equal(first[0], first[1])
    assert np.array_equal(again[0], first[2]) and np.array_equal(again[1], first[0])


def test_cache_is_bounded():
    e = SentenceTransformerEmbedder(cache_size=2, num_threads=1)
    e.embed(["a", "b", "c"])
    assert len(e._cache) == 2


def test_empty_input_and_single_string(embedder):
    assert embedder.embed([]).shape == (0, 384)
    with pytest.raises(TypeError):
        embedder.embed("guardrail")  # type: ignore[arg-type]


def test_l2_normalize_keeps_zero_rows():
    out = l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert np.allclose(out, [[0.6, 0.8], [0.0, 0.0]]) and out.dtype == np.float32
