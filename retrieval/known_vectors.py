"""An embedder that answers names the Entity Network already holds from its stored vectors and
asks the model only for the rest: question entities are mostly corpus entity names, so a question
costs one short model call instead of one per name."""

from __future__ import annotations

import numpy as np

from bifrost.core.embeddings import Embedder
from retrieval.eng_index import EngIndex


class KnownVectors:
    """`Embedder` over ``inner`` that serves the stored vector of every entity name of ``index``."""

    def __init__(self, inner: Embedder, index: EngIndex) -> None:
        self.inner = inner
        self.rows = {name: i for i, name in enumerate(index.entity_names)}
        self.matrix = index.entity_matrix

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.rows))
        fresh = dict(zip(missing, self.inner.embed(missing))) if missing else {}
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.matrix[self.rows[t]] if t in self.rows else fresh[t] for t in texts]).astype(np.float32, copy=False)
