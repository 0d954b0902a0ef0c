"""Matching a question's entities and triples against the Entity Network, in one place for every
retriever: each provision gets a specificity-weighted entity score (an entity named in few
provisions says more than one named everywhere) and its best triple cosine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bifrost.core.embeddings import Embedder
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.channels.entity_index import EngIndex, Match


@dataclass
class EntityEvidence:
    """Entity-network support of one provision: weighted score, matches, specificity, best cosine."""

    score: float = 0.0
    matches: int = 0
    max_specificity: float = 0.0
    best_cosine: float = 0.0
    why: str = ""


@dataclass
class MatchMemo:
    """Entity and triple matches computed ahead for a whole question set in a few large matrix
    products (eval and batch runs), keyed by text and matching settings. Answering reads a question's
    matches from here only when all of them are present; it never adds to it, so a long-running
    process does not grow it."""

    entities: dict[tuple[str, int, float], list[Match]] = field(default_factory=dict)
    triples: dict[tuple[tuple[str, str, str], int, float], list[Match]] = field(default_factory=dict)

    def fill(
        self,
        index: EngIndex,
        embedder: Embedder,
        entities: Sequence[str],
        triples: Sequence[tuple[str, str, str]],
        cfg: RetrievalConfig,
        chunk: int = 256,
    ) -> None:
        """Match every distinct entity name and triple against the index, ``chunk`` rows per product."""
        ek, tk = (cfg.entity_k, cfg.entity_threshold), (cfg.triple_k, cfg.triple_threshold)
        names = [n for n in dict.fromkeys(entities) if (n, *ek) not in self.entities]
        for start in range(0, len(names), chunk):
            part = names[start : start + chunk]
            for n, m in zip(part, index.match_entities(embedder.embed(part), *ek)):
                self.entities[(n, *ek)] = m
        todo = [t for t in dict.fromkeys(triples) if (t, *tk) not in self.triples]
        for start in range(0, len(todo), chunk):
            part = todo[start : start + chunk]
            for t, m in zip(part, index.match_triples(_triple_vectors(embedder, part), *tk)):
                self.triples[(t, *tk)] = m

    def lookup_entities(self, names: Sequence[str], k: int, threshold: float) -> list[list[Match]] | None:
        got = [self.entities.get((n, k, threshold)) for n in names]
        return None if any(m is None for m in got) else got  # type: ignore[return-value]

    def lookup_triples(
        self, triples: Sequence[tuple[str, str, str]], k: int, threshold: float
    ) -> list[list[Match]] | None:
        got = [self.triples.get((tuple(t), k, threshold)) for t in triples]
        return None if any(m is None for m in got) else got  # type: ignore[return-value]


def _triple_vectors(embedder: Embedder, triples: Sequence[tuple[str, str, str]]) -> np.ndarray:
    """Each ``[h, r, t]`` as its three unit vectors concatenated (relation underscores as spaces)."""
    parts = [p for t in triples for p in (t[0], t[1].replace("_", " "), t[2])]
    return embedder.embed(parts).reshape(len(triples), -1)


def centrality_weights(
    embedder: Embedder, question: str, vectors: np.ndarray, enabled: bool = True
) -> np.ndarray:
    """How central each question entity is to the question: 0.5 to 1, by cosine with the question."""
    if not enabled or len(vectors) == 0:
        return np.ones(len(vectors), dtype=np.float32)
    sims = np.clip(vectors @ embedder.embed([question])[0], 0.0, None)
    return 0.5 + 0.5 * sims / (float(sims.max()) or 1.0)  # never zero: every entity the question names counts


def match_entities(
    index: EngIndex,
    embedder: Embedder,
    question: str,
    entities: Sequence[str],
    cfg: RetrievalConfig,
    memo: MatchMemo | None = None,
) -> dict[str, EntityEvidence]:
    """Per provision: the sum over question entities of their best weighted match (cosine x
    centrality x specificity), with the number of matching question entities."""
    out: dict[str, EntityEvidence] = {}
    if not entities:
        return out
    vectors = embedder.embed(list(entities))
    weights = centrality_weights(embedder, question, vectors, cfg.weight_by_centrality)
    found = memo.lookup_entities(entities, cfg.entity_k, cfg.entity_threshold) if memo else None
    if found is None:
        found = index.match_entities(vectors, cfg.entity_k, cfg.entity_threshold)
    for name, matches, w in zip(entities, found, weights):
        best: dict[str, tuple[float, Match]] = {}
        for m in matches:
            s = float(w) * m.score * m.specificity
            for sid in m.section_ids:
                if sid not in best or s > best[sid][0]:
                    best[sid] = (s, m)
        for sid, (s, m) in best.items():
            e = out.setdefault(sid, EntityEvidence())
            e.score += s
            e.matches += 1
            e.max_specificity = max(e.max_specificity, m.specificity)
            if m.score > e.best_cosine:
                e.best_cosine, e.why = m.score, f"entity match: '{name}' ~ '{m.key}' ({m.score:.2f})"
    return out


def match_triples(
    index: EngIndex,
    embedder: Embedder,
    triples: Sequence[tuple[str, str, str]],
    cfg: RetrievalConfig,
    memo: MatchMemo | None = None,
) -> dict[str, tuple[float, str]]:
    """Per provision: the best cosine of a question triple ``[h, r, t]`` with a stated triple, and why."""
    out: dict[str, tuple[float, str]] = {}
    if not triples:
        return out
    found = memo.lookup_triples(triples, cfg.triple_k, cfg.triple_threshold) if memo else None
    if found is None:
        found = index.match_triples(_triple_vectors(embedder, triples), cfg.triple_k, cfg.triple_threshold)
    for (h, r, t), matches in zip(triples, found):
        for m in matches:
            for sid in m.section_ids:
                if m.score > out.get(sid, (0.0, ""))[0]:
                    out[sid] = (m.score, f"triple match: [{h}, {r}, {t}] ~ [{m.key}] ({m.score:.2f})")
    return out
