"""In-memory matrices of the Entity Network for matching: entities and `[h, r, t]` triples.

Loaded once per corpus from the SQL store; matching is a matrix-vector product.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bifrost.core.store import entity_tables
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Triple


@dataclass(frozen=True)
class Match:
    """One matched entity or triple: its row, cosine, and the provisions that state it."""

    key: str
    score: float
    section_ids: tuple[str, ...]
    specificity: float


@dataclass
class EngIndex:
    """Entity and triple embeddings of one corpus with the provisions behind each row."""

    corpus: str
    entity_names: list[str]
    entity_matrix: np.ndarray
    entity_sections: list[tuple[str, ...]]
    triples: list[Triple]
    triple_matrix: np.ndarray
    n_provisions: int

    @classmethod
    def load(cls, sql: SqlStore, corpus: str) -> EngIndex:
        with sql.session() as s:
            names, ent = entity_tables.load_entity_matrix(s, corpus)
            sections = {e.name: e.section_ids for e in entity_tables.load_entities(s, corpus)}
            triples, tri = entity_tables.load_triple_matrix(s, corpus)
        n = max(1, sql.count_provisions(corpus))
        return cls(corpus, names, ent, [sections.get(nm, ()) for nm in names], triples, tri, n)

    def __post_init__(self) -> None:
        self.triple_keys = [f"{t.head} | {t.relation} | {t.tail}" for t in self.triples]
        self.triple_sections = [t.section_ids for t in self.triples]

    @property
    def empty(self) -> bool:
        return not self.entity_names

    @property
    def nbytes(self) -> int:
        return int(self.entity_matrix.nbytes + self.triple_matrix.nbytes)

    def _specificity(self, n_sections: int) -> float:
        """IDF-like weight: an entity named in few provisions says more than one named everywhere."""
        return math.log(1 + self.n_provisions / max(1, n_sections)) / math.log(1 + self.n_provisions)

    def match_entities(self, vectors: np.ndarray, k: int, threshold: float) -> list[list[Match]]:
        """For each query row, the top-k entities with cosine >= threshold."""
        if self.empty or len(vectors) == 0:
            return [[] for _ in range(len(vectors))]
        sims = vectors @ self.entity_matrix.T
        return [self._top(row, k, threshold, self.entity_names, self.entity_sections) for row in sims]

    def match_triples(self, vectors: np.ndarray, k: int, threshold: float) -> list[list[Match]]:
        """For each query `[h, r, t]` row (3 unit vectors concatenated), the top-k triples by cosine."""
        if not self.triples or len(vectors) == 0:
            return [[] for _ in range(len(vectors))]
        sims = (vectors @ self.triple_matrix.T) / 3.0  # each part is unit-norm: cosine of the concatenation
        return [self._top(row, k, threshold, self.triple_keys, self.triple_sections) for row in sims]

    def _top(self, row: np.ndarray, k: int, threshold: float, keys: list[str], sections) -> list[Match]:
        k = min(k, len(row))
        idx = np.argpartition(-row, k - 1)[:k]
        idx = idx[np.argsort(-row[idx])]
        return [
            Match(keys[i], float(row[i]), tuple(sections[i]), self._specificity(len(sections[i])))
            for i in idx
            if row[i] >= threshold
        ]
