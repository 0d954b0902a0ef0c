"""Adapting plain rankers to the `System` protocol (bifrost.retrieval.base) with a cited-set rule.

A system answers a question with a ranked list of provision ids plus the set it would cite.
Rankers (retrieval/channels, eval/baselines) only rank; `RankerSystem` adds a documented cited-set rule.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bifrost.core.errors import BifrostError
from bifrost.retrieval.base import Preparable, Ranker, SystemResult


class SystemFailed(BifrostError):
    """A system raised while answering a question; the message names the system and question."""


@dataclass(frozen=True)
class CiteRule:
    """Which ranked ids a ranked-list system cites.

    ``top``: the first ``n``; ``relative``: those scoring >= ``ratio`` x the top score, at most ``n``.
    """

    kind: str = "top"
    n: int = 3
    ratio: float = 0.9

    def __post_init__(self) -> None:
        if self.kind not in ("top", "relative"):
            raise ValueError(f"cite rule {self.kind!r}: use 'top' or 'relative'")
        if self.n <= 0:
            raise ValueError(f"cite rule n must be > 0, got {self.n}")

    def select(self, ranked: Sequence[tuple[str, float]]) -> list[str]:
        if not ranked:
            return []
        if self.kind == "top":
            return [i for i, _ in ranked[: self.n]]
        top = ranked[0][1]
        return [i for i, s in ranked[: self.n] if s >= self.ratio * top] or [ranked[0][0]]


class RankerSystem:
    """A `System` over a ranker: rank ``max(k, depth)`` provisions, cite by a `CiteRule`."""

    def __init__(self, name: str, ranker: Ranker, cite: CiteRule | None = None, depth: int = 20) -> None:
        self.name = name
        self.ranker = ranker
        self.cite = cite or CiteRule()
        self.depth = depth

    def warm_up(self, corpus: str) -> None:
        self.ranker.warm_up(corpus)

    def prepare(self, questions: list[str]) -> None:
        """Batch the ranker's per-question work (e.g. encode every question at once)."""
        if isinstance(self.ranker, Preparable):
            self.ranker.prepare(questions)

    def search(self, question: str, k: int) -> SystemResult:
        if k <= 0:
            raise ValueError(f"k must be > 0, got {k}")
        t0 = time.perf_counter()
        items = self.ranker.search(question, top_k=max(k, self.depth))
        ranked = [(it.id, float(it.score)) for it in items]
        return SystemResult(ranked=ranked, cited=self.cite.select(ranked), seconds=time.perf_counter() - t0)

    def describe(self) -> dict[str, Any]:
        return {"ranker": self.ranker.describe(), "cite": asdict(self.cite), "depth": self.depth}
