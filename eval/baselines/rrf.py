"""The RRF baseline: reciprocal rank fusion (`bifrost.retrieval.fusion`) of several rankers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bifrost.core.answer_types import RetrievedItem
from bifrost.retrieval.base import Preparable
from bifrost.retrieval.fusion import rrf_fuse


class RrfRanker:
    """Fuse the rankings of child rankers, each asked for ``depth`` results."""

    def __init__(self, rankers: Sequence[Any], k: int = 60, depth: int = 100) -> None:
        self.rankers, self.k, self.depth = list(rankers), k, depth
        self.corpus = ""

    def warm_up(self, corpus: str) -> None:
        self.corpus = corpus
        for r in self.rankers:
            r.warm_up(corpus)

    def prepare(self, questions: list[str]) -> None:
        for r in self.rankers:
            if isinstance(r, Preparable):
                r.prepare(questions)

    def search(self, query: str, top_k: int = 10) -> list[RetrievedItem]:
        if top_k <= 0:
            raise ValueError(f"top_k must be > 0, got {top_k}")
        results = [r.search(query, top_k=max(top_k, self.depth)) for r in self.rankers]
        lists = [[it.id for it in res] for res in results]
        vias: dict[str, tuple] = {}
        for res in results:
            for it in res:
                vias[it.id] = tuple(dict.fromkeys(vias.get(it.id, ()) + it.via))
        fused = rrf_fuse(lists, self.k)[:top_k]
        return [RetrievedItem(corpus=self.corpus, id=pid, score=s, via=vias.get(pid, ())) for pid, s in fused]

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "rrf",
            "k": self.k,
            "depth": self.depth,
            "rankers": [r.describe() for r in self.rankers],
        }
