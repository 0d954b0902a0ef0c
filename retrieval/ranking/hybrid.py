"""Hybrid retrieval over the dual graph (the BifrostRAG algorithm).

1. decompose the question into entities and triples (plus swapped triples);
2. entity matches give provisions A, triple matches give provisions B; candidates = A ∩ B
   (a configurable fallback applies when they do not intersect);
3. follow REFERS_TO from the best candidates through the navigator graph, and add parents
   and children for context; every item records how it was reached and its path;
4. rank by score.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence

from bifrost.core.embeddings import Embedder
from bifrost.core.graph.base import GraphStore
from bifrost.core.provisions import is_container
from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.core.types import make_uid, split_uid
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import Decomposition
from bifrost.retrieval.channels.entity_index import EngIndex
from bifrost.retrieval.channels.entities import MatchMemo, match_entities, match_triples
from bifrost.retrieval.fusion import rrf_score
from bifrost.retrieval.result import DECAY, RetrievalResult
from bifrost.retrieval.result import Hit as _Hit

Lexical = Callable[[str, int], list[tuple[str, float]]]


class HybridRetriever:
    """Entity + triple matching on the ENG, then traversal of the DNG."""

    def __init__(
        self,
        index: EngIndex,
        graph: GraphStore,
        embedder: Embedder,
        decompose: Callable[[str], Decomposition],
        config: RetrievalConfig | None = None,
        lexical: Lexical | None = None,
        dense: Lexical | None = None,
        containers: Collection[str] | None = None,
        memo: MatchMemo | None = None,
    ) -> None:
        self.index = index
        self.memo = memo  # matches computed ahead for a question set (eval), else None
        self.graph = graph
        self.embedder = embedder
        self.decompose = decompose
        self.config = config or RetrievalConfig()
        self.lexical = lexical
        self.dense = dense
        self.containers = frozenset(containers) if containers is not None else None

    # --- ENG matching (retrieval/channels/entities.py) ---
    def _entity_scores(
        self, question: str, entities: Sequence[str], cfg: RetrievalConfig
    ) -> tuple[dict[str, _Hit], float]:
        evidence = match_entities(self.index, self.embedder, question, entities, cfg, self.memo)
        hits: dict[str, _Hit] = defaultdict(_Hit)
        for sid, e in evidence.items():
            hits[sid].add(0.0, Via.ENTITY, e.why)
            hits[sid].score = e.score
        return hits, max((e.best_cosine for e in evidence.values()), default=0.0)

    def _triple_scores(
        self, triples: Sequence[tuple[str, str, str]], cfg: RetrievalConfig
    ) -> dict[str, _Hit]:
        hits: dict[str, _Hit] = defaultdict(_Hit)
        for sid, (score, why) in match_triples(self.index, self.embedder, triples, cfg, self.memo).items():
            hits[sid].add(score, Via.TRIPLE, why)
        return hits

    def _candidates(
        self, question: str, d: Decomposition, cfg: RetrievalConfig
    ) -> tuple[dict[str, _Hit], str, float]:
        a, evidence = self._entity_scores(question, d.entities, cfg)
        triples = list(d.triples) + (list(d.swapped) if cfg.swap else [])
        b = self._triple_scores(triples, cfg)
        both = set(a) & set(b)
        if cfg.combine == "boost":
            keep, mode = set(a) | set(b), "boost"
        elif len(both) >= max(1, cfg.min_candidates):
            keep, mode = both, "intersection"
        elif cfg.fallback == "union":
            keep, mode = set(a) | set(b), "union"
        elif cfg.fallback == "entities":
            keep, mode = set(a) | both, "entities"
        else:
            keep, mode = both, "intersection"
        out: dict[str, _Hit] = {}
        for sid in keep:
            hit = _Hit()
            for src in (a.get(sid), b.get(sid)):
                if src:
                    for v, w in zip(src.via, src.why):
                        hit.add(0.0, v, w)
            hit.score = (a[sid].score if sid in a else 0.0) + (b[sid].score if sid in b else 0.0)
            out[sid] = hit
        return out, mode, evidence

    def _channel(
        self, question: str, cfg: RetrievalConfig, channel: Lexical | None
    ) -> list[tuple[str, float]]:
        """A ranked channel's (id, score) list for the question ([] without the channel)."""
        return channel(question, max(cfg.top_n, cfg.seeds)) if channel is not None else []

    def _fuse(
        self,
        hits: dict[str, _Hit],
        cfg: RetrievalConfig,
        channels: Sequence[tuple[list[tuple[str, float]], float, Via, str]],
    ) -> None:
        """Join ranked channels (ranking, weight, via, label) to the graph seeds, by scaled score or
        reciprocal rank fusion. The seeds' scale (their best score, or their RRF ranks) is taken once,
        before any channel joins, so each channel is fused against the graph seeds alone at its weight."""
        channels = [c for c in channels if c[0] and c[1] > 0]
        if not channels:
            return
        if cfg.fusion == "rrf":
            graph_rank = sorted(hits, key=lambda pid: (-hits[pid].score, pid))
            for i, pid in enumerate(graph_rank, start=1):
                hits[pid].score = rrf_score(i, cfg.rrf_k)
        top = max((h.score for h in hits.values()), default=1.0) or 1.0
        for ranked, weight, via, label in channels:
            best = max(s for _, s in ranked) or 1.0
            for i, (pid, s) in enumerate(ranked, start=1):
                hit = hits.setdefault(pid, _Hit())
                hit.score += (
                    weight * rrf_score(i, cfg.rrf_k) if cfg.fusion == "rrf" else weight * top * s / best
                )
                if via not in hit.via:
                    hit.via.append(via)
                    hit.why.append(f"{label} (rank {i})")

    # --- DNG traversal ---
    def _expand(
        self, seeds: list[tuple[str, _Hit]], hits: dict[str, _Hit], cfg: RetrievalConfig
    ) -> dict[str, list[str]]:
        """Add cross-referenced, parent and child provisions of the seeds; returns each seed's
        cross-references in breadth-first order."""
        corpus = self.index.corpus
        score_of = {pid: h.score for pid, h in seeds}
        refers: dict[str, list[str]] = defaultdict(list)
        if cfg.depth > 0:
            reached = self.graph.refers_to_closure([make_uid(corpus, pid) for pid, _ in seeds], cfg.depth)
            for r in reached:
                path = tuple(split_uid(u)[1] for u in r.path)
                s = score_of.get(path[0], 0.0) * DECAY[Via.REFERS_TO] ** r.depth
                src = path[-2]
                hits.setdefault(path[-1], _Hit()).add(s, Via.REFERS_TO, f"cross-reference from {src}", path)
                refers[path[0]].append(path[-1])
        family = (
            self.graph.family([make_uid(corpus, pid) for pid, _ in seeds])
            if cfg.parents or cfg.children
            else {}
        )
        for pid, seed in seeds:
            uid = make_uid(corpus, pid)
            parent, children = family.get(uid, (None, []))
            rel: list[tuple[Via, list[str], str]] = []
            if cfg.parents and parent:
                rel.append((Via.PARENT, [parent], f"parent of {pid}"))
            if cfg.children:
                rel.append((Via.CHILD, children, f"child of {pid}"))
            if cfg.siblings:
                rel.append((Via.SIBLING, self.graph.siblings(uid), f"sibling of {pid}"))
            for via, uids, why in rel:
                for u in uids:
                    npid = split_uid(u)[1]
                    if self._is_container(npid):  # parts and subparts add no text of their own
                        continue
                    hits.setdefault(npid, _Hit()).add(seed.score * DECAY[via], via, why, (pid, npid))
        return refers

    def _is_container(self, pid: str) -> bool:
        """Parts and subparts (and unknown ids) are not cited: they hold no text of their own."""
        if self.containers is not None:
            return pid in self.containers
        p = self.graph.get_section(make_uid(self.index.corpus, pid))
        return is_container(p)

    @staticmethod
    def _reading_order(
        seeds: list[tuple[str, _Hit]], refers: dict[str, list[str]], hits: dict[str, _Hit]
    ) -> list[str]:
        """Each seed followed by what it cross-references (a provision and what it requires),
        then everything else by score."""
        order: list[str] = []
        for pid, _ in seeds:
            order.append(pid)
            order.extend(refers.get(pid, ()))
        order = list(dict.fromkeys(order))
        placed = set(order)
        rest = sorted(
            (kv for kv in hits.items() if kv[0] not in placed), key=lambda kv: (-kv[1].score, kv[0])
        )
        return order + [pid for pid, _ in rest]

    def _embed_at_once(self, question: str, d: Decomposition, cfg: RetrievalConfig) -> None:
        """One model call for every text of the question (the embedder caches them for the stages)."""
        triples = list(d.triples) + (list(d.swapped) if cfg.swap else [])
        texts = [question, *d.entities, *(p for t in triples for p in (t[0], t[1].replace("_", " "), t[2]))]
        self.embedder.embed(list(dict.fromkeys(texts)))

    # --- entry point ---
    def retrieve(self, question: str, config: RetrievalConfig | None = None) -> RetrievalResult:
        """Ranked provisions for a question, each with its score, ways reached and path."""
        cfg = config or self.config
        t0 = time.perf_counter()
        d = self.decompose(question)
        t1 = time.perf_counter()
        self._embed_at_once(question, d, cfg)
        if cfg.use_eng:
            hits, mode, evidence = self._candidates(question, d, cfg)
        else:
            hits, mode, evidence = {}, "lexical", 0.0
        dense = self._channel(question, cfg, self.dense)
        lexical = self._channel(question, cfg, self.lexical)
        self._fuse(
            hits,
            cfg,
            [
                (dense, cfg.dense_weight, Via.DENSE, "similar meaning"),
                (lexical, cfg.lexical_weight, Via.LEXICAL, "keyword match"),
            ],
        )
        relevance = dense[0][1] if dense else evidence
        t2 = time.perf_counter()
        seeds = sorted(hits.items(), key=lambda kv: (-kv[1].score, kv[0]))[: cfg.seeds]
        for pid, h in seeds:
            if not h.path:
                h.path = (pid,)
        refers = self._expand(seeds, hits, cfg) if cfg.use_dng and seeds else {}
        t3 = time.perf_counter()
        if cfg.order == "reading":
            order = self._reading_order(seeds, refers, hits)
        else:
            order = [pid for pid, _ in sorted(hits.items(), key=lambda kv: (-kv[1].score, kv[0]))]
        ranked: list[tuple[str, _Hit]] = []
        for pid in order:
            if len(ranked) == cfg.top_n:
                break
            if not self._is_container(pid):
                ranked.append((pid, hits[pid]))
        items = [
            RetrievedItem(
                corpus=self.index.corpus,
                id=pid,
                score=round(h.score, 6),
                via=tuple(h.via),
                path=h.path or (pid,),
                why="; ".join(h.why[:3]),
            )
            for pid, h in ranked
        ]
        timings = {"decompose": t1 - t0, "match": t2 - t1, "traverse": t3 - t2}
        return RetrievalResult(
            items=items, decomposition=d, mode=mode, evidence=evidence, relevance=relevance, timings=timings
        )
