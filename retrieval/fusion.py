"""Reciprocal rank fusion, in one place: score(d) = sum over rankings of 1 / (k + rank(d))."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence


def rrf_score(rank: int, k: int = 60) -> float:
    """The RRF contribution of one ranking at 1-based ``rank``."""
    if k <= 0:
        raise ValueError(f"RRF k must be > 0, got {k}")
    return 1.0 / (k + rank)


def rrf_fuse(rankings: Sequence[Sequence[str]], k: int = 60) -> list[tuple[str, float]]:
    """Fused (id, score) best first; ties keep the order of first appearance; duplicates count once."""
    if k <= 0:
        raise ValueError(f"RRF k must be > 0, got {k}")
    scores: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, pid in enumerate(dict.fromkeys(ranking), start=1):
            scores[pid] += rrf_score(rank, k)
    return sorted(scores.items(), key=lambda kv: -kv[1])
