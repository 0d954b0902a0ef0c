"""Matching a question's entities and triples against the Entity Network, in one place for every
retriever: each provision gets a specificity-weighted entity score (an entity named in few
provisions says more than one named everywhere) and its best triple cosine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bifrost.core.embeddings import Embedder
from retrieval.config import RetrievalConfig
from retrieval.eng_index import EngIndex, Match


@dataclass
class EntityEvidence:
    """Entity-network support of one provision: weighted score, matches, specificity, best cosine."""

    score: float = 0.0
    matches: int = 0
    max_specificity: float = 0.0
    best_cosine: float = 0.0
    why: str = ""


def centrality_weights(embedder: Embedder, question: str, vectors: np.ndarray, enabled: bool = True) -> np.ndarray:
    """How central each question entity is to the question: 0.5 to 1, by cosine with the question."""
    if not enabled or len(vectors) == 0:
        return np.ones(len(vectors), dtype=np.float32)
    sims = np.clip(vectors @ embedder.embed([question])[0], 0.0, None)
    return 0.5 + 0.5 * sims / (float(sims.max()) or 1.0)  # never zero: every entity the question names counts


def match_entities(
    index: EngIndex, embedder: Embedder, question: str, entities: Sequence[str], cfg: RetrievalConfig,
) -> dict[str, EntityEvidence]:
    """Per provision: the sum over question entities of their best weighted match (cosine x
    centrality x specificity), with the number of matching question entities."""
    out: dict[str, EntityEvidence] = {}
    if not entities:
        return out
    vectors = embedder.embed(list(entities))
    weights = centrality_weights(embedder, question, vectors, cfg.weight_by_centrality)
    for name, matches, w in zip(entities, index.match_entities(vectors, cfg.entity_k, cfg.entity_threshold), weights):
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
    index: EngIndex, embedder: Embedder, triples: Sequence[tuple[str, str, str]], cfg: RetrievalConfig,
) -> dict[str, tuple[float, str]]:
    """Per provision: the best cosine of a question triple ``[h, r, t]`` with a stated triple, and why."""
    out: dict[str, tuple[float, str]] = {}
    if not triples:
        return out
    parts = [p for t in triples for p in (t[0], t[1].replace("_", " "), t[2])]
    vectors = embedder.embed(parts).reshape(len(triples), -1)
    for (h, r, t), matches in zip(triples, index.match_triples(vectors, cfg.triple_k, cfg.triple_threshold)):
        for m in matches:
            for sid in m.section_ids:
                if m.score > out.get(sid, (0.0, ""))[0]:
                    out[sid] = (m.score, f"triple match: [{h}, {r}, {t}] ~ [{m.key}] ({m.score:.2f})")
    return out
