"""Matrices of the Entity Network for matching: entities and `[h, r, t]` triples.

Loaded once per corpus; matching is a matrix-vector product. With a cache folder the matrices are
saved as ``.npy`` files keyed by the entity network's generation id (a new id on every write to
the entity tables), written atomically and memory-mapped when read, instead of decoding every
vector from SQL at each start.
"""

from __future__ import annotations

import json
import logging
import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bifrost.core.atomic_files import atomic_folder, save_npy
from bifrost.core.errors import StoreError
from bifrost.core.store import entity_tables
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Triple
from bifrost.retrieval.channels.triple_parts import TripleParts

log = logging.getLogger(__name__)


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
    triple_parts: TripleParts | None = field(default=None, repr=False)  # None: split on first use

    @classmethod
    def load(cls, sql: SqlStore, corpus: str, cache_dir: Path | None = None) -> EngIndex:
        """The index of a corpus: from the files in ``cache_dir`` when they match the stored
        generation, else from SQL (then saved there for the next process)."""
        if cache_dir is None:
            return cls.from_sql(sql, corpus)
        gen = _generation(sql, corpus)
        if gen is None:
            return cls.from_sql(sql, corpus)
        folder = cache_dir / f"eng-{gen[:16]}"
        n = max(1, sql.count_provisions(corpus))
        if (folder / "rows.json").is_file():
            try:
                index = cls._from_folder(folder, corpus, n)
            except (OSError, ValueError, KeyError) as e:
                log.warning("ignoring unreadable entity index %s: %s", folder, e)
            else:
                if index.triple_parts is None:  # written before parts were saved: add them once
                    index._save_parts(folder)
                return index
        log.info("writing the entity network index (missing or stale): %s", folder)
        index = cls.from_sql(sql, corpus)
        if not index.empty:
            index.save(folder)
        return index

    @classmethod
    def _from_folder(cls, folder: Path, corpus: str, n: int) -> EngIndex:
        rows = json.loads((folder / "rows.json").read_text())
        triples = [  # written by `save` from validated triples: built without validating each again
            Triple.model_construct(corpus=corpus, head=h, relation=r, tail=t, section_ids=tuple(ss))
            for h, r, t, ss in rows["triples"]
        ]
        parts = None
        if (folder / "triple_parts.npy").is_file() and (folder / "triple_part_rows.npy").is_file():
            parts = TripleParts(
                np.load(folder / "triple_parts.npy", mmap_mode="r"), np.load(folder / "triple_part_rows.npy")
            )
        return cls(
            corpus,
            rows["entities"],
            np.load(folder / "entities.npy", mmap_mode="r"),
            [tuple(ss) for ss in rows["entity_sections"]],
            triples,
            np.load(folder / "triples.npy", mmap_mode="r"),
            n,
            parts,
        )

    def _save_parts(self, folder: Path) -> None:
        """Add the triple parts to an existing generation folder (each file renamed into place)."""
        parts = self.parts()
        try:
            save_npy(folder / "triple_part_rows.npy", parts.rows)
            save_npy(folder / "triple_parts.npy", parts.vectors)
        except OSError as e:  # a read-only home still answers; the split is redone next start
            log.warning("cannot add the triple parts to %s: %s", folder, e)

    def save(self, folder: Path) -> None:
        """Write the matrices and their rows to ``folder`` in one rename; older generations beside it
        are removed (a process that still maps them keeps its open files)."""
        rows = {
            "entities": self.entity_names,
            "entity_sections": [list(ss) for ss in self.entity_sections],
            "triples": [[t.head, t.relation, t.tail, list(t.section_ids)] for t in self.triples],
        }
        try:
            with atomic_folder(folder) as tmp:
                np.save(tmp / "entities.npy", np.ascontiguousarray(self.entity_matrix, dtype=np.float32))
                np.save(tmp / "triples.npy", np.ascontiguousarray(self.triple_matrix, dtype=np.float32))
                np.save(tmp / "triple_part_rows.npy", self.parts().rows)
                np.save(tmp / "triple_parts.npy", self.parts().vectors)
                (tmp / "rows.json").write_text(json.dumps(rows, ensure_ascii=False))
        except OSError as e:  # a read-only home still answers, only slower next time
            log.warning("cannot write the entity index %s: %s", folder, e)
            return
        for old in folder.parent.glob("eng-*"):
            if old != folder and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def from_sql(cls, sql: SqlStore, corpus: str) -> EngIndex:
        """The index decoded from the SQL entity tables."""
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
        return int(self.entity_matrix.nbytes + self.parts().nbytes)

    def parts(self) -> TripleParts:
        """The triple matrix as distinct part vectors (what matching reads)."""
        if self.triple_parts is None:
            self.triple_parts = TripleParts.of(self.triple_matrix)
        return self.triple_parts

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
        sims = self.parts().cosines(vectors)  # each part is unit-norm: the mean of three cosines
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


def _generation(sql: SqlStore, corpus: str) -> str | None:
    """The stored generation id of a corpus's entity network; a home written before ids existed
    gets one now (None when the store is read-only: the caller then reads SQL)."""
    with sql.session() as s:
        gen = entity_tables.generation(s, corpus)
    if gen is not None:
        return gen
    try:
        with sql.session() as s:
            return entity_tables.new_generation(s, corpus)
    except StoreError as e:  # a read-only store only means "no cache"
        log.warning("cannot record an entity network generation for %s (%s); reading SQL", corpus, e)
        return None
