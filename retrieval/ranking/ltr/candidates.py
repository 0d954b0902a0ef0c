"""The candidate pool of one question: the best provisions of every channel (BM25, dense, entity and
triple matches) plus the navigator neighbours of the best of them (cross-references both ways,
parent, children, siblings). Each candidate keeps the channels that found it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bifrost.core.answer_types import Via
from bifrost.retrieval.fusion import rrf_score
from bifrost.retrieval.channels.base import Evidence
from bifrost.retrieval.navigator import NavigatorIndex, traverse


FUSION_DEPTH = 100  # ranks past this add nothing to the fused seed score (as the rrf baseline's depth)


@dataclass(frozen=True)
class PoolSizes:
    """How many provisions each channel contributes, and how many seeds are expanded."""

    lexical: int = 50
    dense: int = 50
    entity: int = 30
    triple: int = 20
    seeds: int = 10
    children: int = 12
    siblings: int = 6
    named_below: int = 8  # parts of a named section or subpart, best for the question first
    precedent_below: int = 3  # parts of a section or subpart a similar precedent cites


@dataclass
class Pool:
    """Candidate ids with the channels that found each, and the channel-fusion score of every document."""

    ids: list[str]
    via: dict[str, list[Via]]
    why: dict[str, list[str]]
    base: dict[str, float]  # reciprocal-rank fusion of BM25, dense and entity ranks
    path: dict[str, tuple[str, ...]]  # how a navigator neighbour was reached: (seed, neighbour)
    seeds: list[str]
    bm25_rank: np.ndarray
    dense_rank: np.ndarray


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based rank of every entry, best (highest) first; ties broken by position."""
    return ordered(scores)[1]


def ordered(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries best first (ties by position) and the 1-based rank of each, from one sort."""
    order = np.argsort(-scores, kind="stable")
    out = np.empty(len(scores), dtype=np.int64)
    out[order] = np.arange(1, len(scores) + 1)
    return order, out


def build_pool(
    ev: Evidence,
    ids: list[str],
    nav: NavigatorIndex,
    sizes: PoolSizes = PoolSizes(),
    position: dict[str, int] | None = None,
) -> Pool:
    """The candidates of one question (containers and unknown ids left out); ``position`` (id ->
    index in ``ids``) is computed when not given."""
    (bm25_order, bm25_rank), (dense_order, dense_rank) = ordered(ev.bm25), ordered(ev.dense)
    via: dict[str, list[Via]] = {}
    why: dict[str, list[str]] = {}
    path: dict[str, tuple[str, ...]] = {}

    def add(pid: str, how: Via, reason: str, seed: str | None = None) -> None:
        if nav.is_container(pid):
            return
        if seed is not None and pid not in via:
            path[pid] = (seed, pid)
        vs = via.setdefault(pid, [])
        if how not in vs:
            vs.append(how)
            why.setdefault(pid, []).append(reason)

    for i in bm25_order[: sizes.lexical]:
        if ev.bm25[i] > 0:
            add(ids[i], Via.LEXICAL, f"keyword match (rank {bm25_rank[i]})")
    for i in dense_order[: sizes.dense]:
        add(ids[i], Via.DENSE, f"similar meaning (rank {dense_rank[i]})")
    by_entity = sorted(ev.entities.items(), key=lambda kv: (-kv[1].score, kv[0]))
    for pid, e in by_entity[: sizes.entity]:
        add(pid, Via.ENTITY, e.why)
    for pid, (_s, reason) in sorted(ev.triples.items(), key=lambda kv: (-kv[1][0], kv[0]))[: sizes.triple]:
        add(pid, Via.TRIPLE, reason)

    position = position if position is not None else {pid: i for i, pid in enumerate(ids)}
    add_named_and_cited(ev, nav, sizes, _fit(ev, position), add)

    entity_rank = {pid: r for r, (pid, _) in enumerate(by_entity, start=1)}
    base: dict[str, float] = {}
    for pid in via:
        i = position.get(pid)
        s = rrf_score(int(entity_rank[pid])) if pid in entity_rank else 0.0
        if i is not None and ev.bm25[i] > 0 and bm25_rank[i] <= FUSION_DEPTH:
            s += rrf_score(int(bm25_rank[i]))
        if i is not None and dense_rank[i] <= FUSION_DEPTH:
            s += rrf_score(int(dense_rank[i]))
        base[pid] = s
    seeds = sorted(base, key=lambda p: (-base[p], p))[: sizes.seeds]
    for seed in seeds:  # what the navigator graph joins to each seed
        for step in traverse(nav, seed, referrers=True, max_children=sizes.children, siblings=sizes.siblings):
            add(step.id, step.via, step.why, seed)
    for pid in via:
        base.setdefault(pid, 0.0)
    return Pool(list(via), via, why, base, path, seeds, bm25_rank, dense_rank)


def add_named_and_cited(ev: Evidence, nav: NavigatorIndex, sizes: PoolSizes, fit, add) -> None:
    """Candidates the question names (with the parts of a named section that best fit it) and those its
    similar precedents cite (with the best-fitting parts of a cited section), through ``add(pid, via,
    reason)``."""
    for cite in ev.named:
        if cite.target_id is not None:
            add(cite.target_id, Via.NAMED, f"named in the question ({cite.written})")
            for pid in best_below(nav, cite.target_id, fit, sizes.named_below):
                add(pid, Via.NAMED, f"in {cite.target_id}, named in the question")
    for pid, rank in sorted(ev.votes.cited_ids.items(), key=lambda kv: (kv[1], kv[0])):
        add(pid, Via.PRECEDENT, f"cited by a similar answered question (rank {rank})")
        for below in best_below(nav, pid, fit, sizes.precedent_below):
            add(below, Via.PRECEDENT, f"in {pid}, cited by a similar answered question (rank {rank})")


def _fit(ev: Evidence, position: dict[str, int]):
    """How well a provision fits the question, to pick the parts of a named or cited section: BM25 plus
    cosine, each relative to its best over the corpus."""
    bm25_max = float(ev.bm25.max()) if len(ev.bm25) else 0.0
    dense_max = float(ev.dense.max()) if len(ev.dense) else 0.0

    def fit(pid: str) -> float:
        i = position.get(pid)
        if i is None:
            return -1.0
        lex = float(ev.bm25[i]) / bm25_max if bm25_max > 0 else 0.0
        return lex + (float(ev.dense[i]) / dense_max if dense_max > 0 else 0.0)

    return fit


def descendants(nav: NavigatorIndex, pid: str) -> list[str]:
    """Every provision below ``pid`` in the navigator tree, in document order of the walk."""
    out: list[str] = []
    stack = list(reversed(nav.children.get(pid, ())))
    while stack:
        cur = stack.pop()
        out.append(cur)
        stack.extend(reversed(nav.children.get(cur, ())))
    return out


def best_below(nav: NavigatorIndex, pid: str, fit, most: int) -> list[str]:
    """The ``most`` provisions below ``pid`` that best fit the question (containers left out)."""
    if most <= 0:
        return []
    below = [d for d in descendants(nav, pid) if not nav.is_container(d)]
    return sorted(below, key=lambda d: (-fit(d), d))[:most]
