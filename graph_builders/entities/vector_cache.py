"""An embedder that remembers every vector it computed, so an entity build embeds only new names.

The refiner embeds each new normalized entity name and each relation phrase. Replaying the refiner
over the stored extractions (the incremental build) asks for the same texts again; this wrapper
serves them from the SQL table ``eng_text_vectors`` (keyed by embedding model and text) and sends
only unseen texts to the model. New vectors are kept in memory until `save` writes them.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import numpy as np
from sqlalchemy.orm import Session

from bifrost.core.embeddings import Embedder, l2_normalize
from bifrost.core.store import entity_tables

SessionScope = Callable[[], AbstractContextManager[Session]]


class CachedEmbedder:
    """`Embedder` over another one with a persistent ``text -> vector`` cache for one model id."""

    def __init__(self, embedder: Embedder, model: str, session_scope: SessionScope | None = None) -> None:
        if not model:
            raise ValueError("the vector cache needs the embedding model's name (its key)")
        self.embedder = embedder
        self.model = model
        self.session_scope = session_scope
        self._known: dict[str, np.ndarray] | None = None
        self._fresh: dict[str, np.ndarray] = {}
        self.hits = 0  # distinct texts served from the cache, per call
        self.computed = 0  # texts sent to the model

    @property
    def dim(self) -> int:
        return self.embedder.dim

    def _cache(self) -> dict[str, np.ndarray]:
        if self._known is None:
            self._known = {}
            if self.session_scope is not None:
                with self.session_scope() as s:
                    self._known = entity_tables.load_text_vectors(s, self.model)
        return self._known

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-norm rows for ``texts``: cached ones read back, the others computed and remembered."""
        if not texts:
            return self.embedder.embed([])
        known = self._cache()
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            for t, v in zip(missing, l2_normalize(self.embedder.embed(missing))):
                known[t] = self._fresh[t] = v
            self.computed += len(missing)
        self.hits += len(set(texts)) - len(missing)
        return np.stack([known[t] for t in texts]).astype(np.float32, copy=False)

    def save(self, session: Session) -> int:
        """Write the vectors computed since the last save (inside the caller's transaction)."""
        written = entity_tables.add_text_vectors(session, self.model, self._fresh) if self._fresh else 0
        self._fresh = {}
        return written
