"""Names the Entity Network holds are answered from its stored vectors; only new text reaches the model."""

from __future__ import annotations

import numpy as np

from retrieval.eng_index import EngIndex
from retrieval.known_vectors import KnownVectors


class CountingEmbedder:
    dim = 2

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.asked += texts
        return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)


def index() -> EngIndex:
    return EngIndex("c", ["guardrail", "scaffold"], np.array([[1, 0], [0, 1]], dtype=np.float32), [("a",), ("b",)],
                    [], np.zeros((0, 6), dtype=np.float32), 2)


def test_known_names_come_from_the_index_and_the_rest_from_the_model_once():
    inner = CountingEmbedder()
    kv = KnownVectors(inner, index())
    out = kv.embed(["scaffold", "a question about guardrails", "guardrail", "a question about guardrails"])
    assert inner.asked == ["a question about guardrails"]
    assert out.tolist()[0] == [0.0, 1.0] and out.tolist()[2] == [1.0, 0.0]
    assert out.shape == (4, 2) and kv.embed([]).shape == (0, 2)
