"""The incremental entity refiner: merges entity mentions into canonical entities, one pass.

A mention whose normalized name is already known (the local schema) joins that entity; else it
is embedded and compared by cosine with the entities so far; at or above ``tau`` it merges
into the most similar one, else it becomes a new entity. Batches give the same result as adding
names one by one. The comparison is an `EntitySearch`: exact matrix products (n names cost
O(n * entities * d)) up to ``switch_at`` entities, then SimHash LSH (near-linear; see neighbours.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from bifrost.core.embeddings import Embedder, l2_normalize
from bifrost.core.types import Entity, Triple
from bifrost.graph_builders.entities.neighbours import EntitySearch, SearchMode
from bifrost.graph_builders.entities.normalize import normalize_name

Normalizer = Callable[[str, str], str]
_SNAKE = re.compile(r"[^a-z0-9]+")


def relation_key(relation: str) -> str:
    """A relation type as snake_case: ``Shall Protect-From`` -> ``shall_protect_from``."""
    return _SNAKE.sub("_", relation.lower()).strip("_")


def relation_text(relation: str) -> str:
    """The phrase embedded for a relation: underscores become spaces."""
    return relation.replace("_", " ").strip()


class IncrementalEntityRefiner:
    """Canonical entities and triples of one corpus, built incrementally from extracted mentions."""

    def __init__(
        self,
        embedder: Embedder,
        tau: float = 0.95,
        corpus: str = "",
        normalizer: Normalizer = normalize_name,
        batch_size: int = 1024,
        initial_capacity: int = 1024,
        search: SearchMode = "auto",
        switch_at: int = 20_000,
    ) -> None:
        if not 0.0 < tau <= 1.0:
            raise ValueError(f"tau must be in (0, 1], got {tau}")
        if batch_size <= 0:
            raise ValueError(f"batch_size must be > 0, got {batch_size}")
        self.embedder = embedder
        self.tau = tau
        self.corpus = corpus
        self.normalizer = normalizer
        self.batch_size = batch_size
        self._search = EntitySearch(tau, search, switch_at, initial_capacity)
        self._names: list[str] = []
        self._labels: list[str] = []
        self._sources: list[dict[str, None]] = []  # ordered sets of provision ids
        self._index: dict[str, int] = {}  # normalized name -> entity row
        self._alias: dict[str, int] = {}  # mention as given -> entity row (first label wins)
        self._triples: dict[tuple[int, str, int], dict[str, None]] = {}
        self._relation_vectors: dict[str, np.ndarray] = {}

    # --- entities ---

    def __len__(self) -> int:
        return len(self._names)

    @property
    def uses_lsh(self) -> bool:
        """Whether new names are now compared with SimHash candidates instead of every entity."""
        return self._search.uses_lsh

    def canonical(self, name: str, label: str = "") -> str | None:
        """The canonical name a mention maps to by exact normalized match, or None."""
        row = self._index.get(self.normalizer(name, label))
        return None if row is None else self._names[row]

    def add(self, name: str, label: str, provision_id: str) -> str:
        """Add one mention; returns the canonical entity name it now belongs to."""
        return self.add_many([(name, label, provision_id)])[0]

    def add_many(self, mentions: Sequence[tuple[str, str, str]]) -> list[str]:
        """Add ``(name, label, provision_id)`` mentions; same result as calling `add` on each in order."""
        return [self._names[r] for r in self._add_rows(mentions)]

    def _add_rows(self, mentions: Sequence[tuple[str, str, str]]) -> list[int]:
        rows: list[int] = []
        for start in range(0, len(mentions), self.batch_size):
            rows.extend(self._add_batch(mentions[start : start + self.batch_size]))
        return rows

    def _add_batch(self, mentions: Sequence[tuple[str, str, str]]) -> list[int]:
        norms = []
        for name, label, pid in mentions:
            norm = self.normalizer(name, label)
            if not norm:
                raise ValueError(f"entity name {name!r} (provision {pid}) is empty after normalization")
            norms.append(norm)
        new = [n for n in dict.fromkeys(norms) if n not in self._index]
        first_label = {}
        for norm, (_, label, _) in zip(norms, mentions):
            first_label.setdefault(norm, label)
        if new:
            self._place(new, [first_label[n] for n in new])
        rows = [self._index[n] for n in norms]
        for row, (name, _, pid) in zip(rows, mentions):
            self._sources[row][pid] = None
            self._alias.setdefault(name, row)
        return rows

    def _place(self, new: list[str], labels: list[str]) -> None:
        """Merge or create an entity for each new normalized name, in order."""
        vectors = l2_normalize(self.embedder.embed(new))
        if self.tau >= 1.0:  # tau 1: only exact (normalized) names merge
            for norm, label, vector in zip(new, labels, vectors):
                self._index[norm] = self._append(norm, label, vector)
            return
        best_old, arg_old = self._search.best(vectors)
        intra = vectors @ vectors.T
        created = np.zeros(len(new), dtype=bool)  # which batch positions became entities
        row_of = np.zeros(len(new), dtype=np.int64)
        for j, norm in enumerate(new):
            target, sim = int(arg_old[j]), float(best_old[j])
            if j and created[:j].any():
                sims = np.where(created[:j], intra[j, :j], -np.inf)
                k = int(np.argmax(sims))  # first max = earliest created = lowest row
                if sims[k] > sim:  # ties go to the older (lower row) entity, as one by one
                    target, sim = int(row_of[k]), float(sims[k])
            if sim >= self.tau:
                self._index[norm] = target
            else:
                row_of[j] = self._index[norm] = self._append(norm, labels[j], vectors[j])
                created[j] = True
        self._search.index_new_rows()

    def _append(self, name: str, label: str, vector: np.ndarray) -> int:
        row = self._search.append(vector)
        self._names.append(name)
        self._labels.append(label)
        self._sources.append({})
        return row

    def entities(self, corpus: str | None = None) -> list[Entity]:
        """Canonical entities with the provisions that mention them, in creation order."""
        c = self.corpus if corpus is None else corpus
        return [
            Entity(corpus=c, name=n, label=lab, section_ids=tuple(src))
            for n, lab, src in zip(self._names, self._labels, self._sources)
        ]

    def entity_matrix(self) -> tuple[list[str], np.ndarray]:
        """Canonical names and their embeddings (n, d), row i for name i."""
        if not self._names:
            return [], np.zeros((0, 0), dtype=np.float32)
        return list(self._names), self._search.matrix().copy()

    # --- triples ---

    def add_triple(self, head: str, relation: str, tail: str, provision_id: str) -> Triple | None:
        """Record a relation between two mentions; a mention seen before maps to its entity, a new
        one is added (label ""). None for an empty relation or a self-loop after merging (dropped)."""
        return self.add_triples([(head, relation, tail, provision_id)])[0]

    def add_triples(self, triples: Sequence[tuple[str, str, str, str]]) -> list[Triple | None]:
        """Batched `add_triple` over ``(head, relation, tail, provision_id)``."""
        unseen = [(m, "", pid) for h, _, t, pid in triples for m in (h, t) if m not in self._alias]
        self._add_rows(unseen)
        out: list[Triple | None] = []
        for head, rel, tail, pid in triples:
            h, t, r = self._alias[head], self._alias[tail], relation_key(rel)
            self._sources[h][pid] = None
            self._sources[t][pid] = None
            if h == t or not r:
                out.append(None)
                continue
            self._triples.setdefault((h, r, t), {})[pid] = None
            out.append(self._triple(h, r, t))
        return out

    def _triple(self, h: int, r: str, t: int, corpus: str | None = None) -> Triple:
        c = self.corpus if corpus is None else corpus
        return Triple(
            corpus=c,
            head=self._names[h],
            relation=r,
            tail=self._names[t],
            section_ids=tuple(self._triples[(h, r, t)]),
        )

    def triples(self, corpus: str | None = None) -> list[Triple]:
        """Distinct triples (after merging), each with the union of provisions stating it."""
        return [self._triple(h, r, t, corpus) for (h, r, t) in self._triples]

    def relations(self) -> list[str]:
        """Distinct relation types, in first-seen order."""
        return list(dict.fromkeys(r for _, r, _ in self._triples))

    def relation_matrix(self, relations: Iterable[str] | None = None) -> tuple[list[str], np.ndarray]:
        """Relation types and embeddings of their phrases (underscores -> spaces), cached."""
        rels = list(self.relations() if relations is None else relations)
        todo = [r for r in rels if r not in self._relation_vectors]
        if todo:
            for r, v in zip(todo, l2_normalize(self.embedder.embed([relation_text(r) for r in todo]))):
                self._relation_vectors[r] = v
        if not rels:
            return [], np.zeros((0, self._search.matrix().shape[1]), dtype=np.float32)
        return rels, np.stack([self._relation_vectors[r] for r in rels])

    def triple_matrix(self, corpus: str | None = None) -> tuple[list[Triple], np.ndarray]:
        """Triples and their ``[head, relation, tail]`` embeddings concatenated, shape (m, 3d)."""
        keys = list(self._triples)
        triples = [self._triple(h, r, t, corpus) for h, r, t in keys]
        if not keys:
            return [], np.zeros((0, 3 * self._search.matrix().shape[1]), dtype=np.float32)
        rels, rmat = self.relation_matrix()
        rrow = {r: i for i, r in enumerate(rels)}
        matrix = self._search.matrix()
        heads = matrix[[h for h, _, _ in keys]]
        tails = matrix[[t for _, _, t in keys]]
        mids = rmat[[rrow[r] for _, r, _ in keys]]
        return triples, np.concatenate([heads, mids, tails], axis=1)
