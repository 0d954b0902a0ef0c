"""What every channel says about one question: BM25 and dense scores of every provision, entity
and triple matches in the Entity Network, and the question's decomposition. Gathered once per
question; candidates and features are read from it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bifrost.core.embeddings import Embedder
from retrieval.baselines.bm25 import Bm25Ranker
from retrieval.baselines.dense import DenseRanker
from retrieval.config import RetrievalConfig
from retrieval.decompose import Decomposition
from retrieval.eng_index import EngIndex


@dataclass
class EntityEvidence:
    """Entity-network support of one provision: weighted score, matches, specificity, best cosine."""

    score: float = 0.0
    matches: int = 0
    max_specificity: float = 0.0
    best_cosine: float = 0.0
    why: str = ""


@dataclass
class Evidence:
    """Channel scores of one question over one corpus."""

    question: str
    bm25: np.ndarray
    dense: np.ndarray
    entities: dict[str, EntityEvidence] = field(default_factory=dict)
    triples: dict[str, tuple[float, str]] = field(default_factory=dict)
    decomposition: Decomposition = field(default_factory=Decomposition)

    @property
    def relevance(self) -> float:
        """Best cosine between the question and any provision (the refusal signal)."""
        return float(self.dense.max()) if len(self.dense) else 0.0

    @property
    def entity_evidence(self) -> float:
        return max((e.best_cosine for e in self.entities.values()), default=0.0)


class Channels:
    """The retrieval channels of one corpus, sharing one document order (BM25 and dense ids agree)."""

    def __init__(
        self, bm25: Bm25Ranker, dense: DenseRanker, index: EngIndex, embedder: Embedder,
        decompose: Callable[[str], Decomposition],
    ) -> None:
        if bm25.ids != dense.ids:
            raise ValueError("BM25 and dense indexes disagree on the documents; rebuild the index")
        self.bm25, self.dense, self.index, self.embedder, self.decompose = bm25, dense, index, embedder, decompose
        self.ids = dense.ids
        self.position = {pid: i for i, pid in enumerate(self.ids)}

    def gather(self, question: str, cfg: RetrievalConfig) -> Evidence:
        d = self.decompose(question)
        triples = list(d.triples) + (list(d.swapped) if cfg.swap else [])
        texts = [question, *d.entities, *(p for t in triples for p in (t[0], t[1].replace("_", " "), t[2]))]
        self.embedder.embed(list(dict.fromkeys(texts)))  # one model call; the embedder caches the parts
        ev = Evidence(question, self.bm25.score_all(question), self.dense.score_all(question), decomposition=d)
        if cfg.use_eng:
            ev.entities = self._entities(question, d, cfg)
            ev.triples = self._triples(triples, cfg)
        return ev

    def _entities(self, question: str, d: Decomposition, cfg: RetrievalConfig) -> dict[str, EntityEvidence]:
        out: dict[str, EntityEvidence] = {}
        if not d.entities:
            return out
        vectors = self.embedder.embed(list(d.entities))
        sims = np.clip(vectors @ self.embedder.embed([question])[0], 0.0, None)
        weights = 0.5 + 0.5 * sims / (float(sims.max()) or 1.0)
        for name, matches, w in zip(d.entities, self.index.match_entities(vectors, cfg.entity_k, cfg.entity_threshold), weights):
            best: dict[str, tuple[float, object]] = {}
            for m in matches:
                s = float(w) * m.score * m.specificity
                for sid in m.section_ids:
                    if s > best.get(sid, (0.0, None))[0]:
                        best[sid] = (s, m)
            for sid, (s, m) in best.items():
                e = out.setdefault(sid, EntityEvidence())
                e.score += s
                e.matches += 1
                e.max_specificity = max(e.max_specificity, m.specificity)  # type: ignore[attr-defined]
                if m.score > e.best_cosine:  # type: ignore[attr-defined]
                    e.best_cosine = m.score  # type: ignore[attr-defined]
                    e.why = f"entity match: '{name}' ~ '{m.key}' ({m.score:.2f})"  # type: ignore[attr-defined]
        return out

    def _triples(self, triples: list[tuple[str, str, str]], cfg: RetrievalConfig) -> dict[str, tuple[float, str]]:
        out: dict[str, tuple[float, str]] = {}
        if not triples:
            return out
        parts = [p for t in triples for p in (t[0], t[1].replace("_", " "), t[2])]
        vectors = self.embedder.embed(parts).reshape(len(triples), -1)
        for (h, r, t), matches in zip(triples, self.index.match_triples(vectors, cfg.triple_k, cfg.triple_threshold)):
            for m in matches:
                for sid in m.section_ids:
                    if m.score > out.get(sid, (0.0, ""))[0]:
                        out[sid] = (m.score, f"triple match: [{h}, {r}, {t}] ~ [{m.key}] ({m.score:.2f})")
        return out
