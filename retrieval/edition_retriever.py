"""Retrieval over a past edition of a corpus (``ask --as-of``, ``eval --as-of``).

The entity network and the learned ranker describe the current edition only, so a past edition
is ranked by reciprocal rank fusion of BM25 and dense search over that edition's provisions,
then widened with navigator neighbours (REFERS_TO targets, parents, children) read from that
edition's references. Only provisions valid in the edition can be reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bifrost.core.provisions import container_ids
from bifrost.core.settings import Settings
from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.core.types import Edition, Provision
from bifrost.retrieval.channels.bm25 import Bm25Ranker
from bifrost.retrieval.channels.dense import DenseRanker
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.decompose import Decomposition
from bifrost.retrieval.fusion import rrf_fuse
from bifrost.retrieval.navigator import NavigatorIndex, traverse
from bifrost.retrieval.result import DECAY, Hit, RetrievalResult

METHOD = "lexical + dense fusion with navigator neighbours"


def edition_note(edition: Edition) -> str:
    """What an answer over a past edition says about how it was ranked."""
    when = f" ({edition.date})" if edition.date else ""
    return (
        f"as of edition {edition.number}{when}: ranked by {METHOD}; "
        "the entity network and the learned ranker cover the last ingested edition only"
    )


class EditionRetriever:
    """BM25 + dense RRF over one edition's provisions, widened through that edition's navigator graph."""

    def __init__(
        self,
        edition: Edition,
        provisions: list[Provision],
        nav: NavigatorIndex,
        bm25: Bm25Ranker,
        dense: DenseRanker,
        config: RetrievalConfig,
    ) -> None:
        self.edition, self.nav, self.bm25, self.dense, self.config = edition, nav, bm25, dense, config
        self.corpus = edition.corpus
        self.provisions = {p.id: p for p in provisions}
        self.containers = frozenset(container_ids(provisions))

    @classmethod
    def load(
        cls, settings: Settings, edition: Edition, embedder, config: RetrievalConfig
    ) -> EditionRetriever:
        """Read the edition's provisions and references from SQL and index them (dense vectors cached on
        disk)."""
        from bifrost.core.store.sql_store import SqlStore

        store = SqlStore(settings.sql_url)
        try:
            provisions = store.provisions_at(edition.corpus, edition.number)
            references = store.references_at(edition.corpus, edition.number)
        finally:
            store.dispose()
        bm25 = Bm25Ranker(settings, edition=edition.number)
        bm25.warm_up(edition.corpus)
        dense = DenseRanker(settings, embedder=embedder, edition=edition.number)
        dense.warm_up(edition.corpus)
        return cls(edition, provisions, NavigatorIndex.build(provisions, references), bm25, dense, config)

    def lookup(self) -> Callable[[str], Provision | None]:
        """A provision of this edition by id (the text as it was then), or None."""
        return self.provisions.get

    def note(self) -> str:
        return edition_note(self.edition)

    def retrieve(self, question: str, config: RetrievalConfig | None = None) -> RetrievalResult:
        """Fused lexical and dense ranking, seeds widened by cross-references, parents and children."""
        cfg = config or self.config
        t0 = time.perf_counter()
        depth = max(cfg.top_n, cfg.seeds)
        lexical = [it.id for it in self.bm25.search(question, depth)]
        dense_items = self.dense.search(question, depth)
        dense = [it.id for it in dense_items]
        hits: dict[str, Hit] = {}
        lex_rank = {pid: i for i, pid in enumerate(lexical, start=1)}
        dense_rank = {pid: i for i, pid in enumerate(dense, start=1)}
        channels = ((Via.LEXICAL, lex_rank, "keyword match"), (Via.DENSE, dense_rank, "similar meaning"))
        for pid, score in rrf_fuse([lexical, dense], cfg.rrf_k):
            found = [(via, f"{label} (rank {ranks[pid]})") for via, ranks, label in channels if pid in ranks]
            hits[pid] = Hit(score, via=[v for v, _ in found], path=(pid,), why=[w for _, w in found])
        t1 = time.perf_counter()
        seeds = sorted(hits.items(), key=lambda kv: (-kv[1].score, kv[0]))[: cfg.seeds]
        if cfg.use_dng:
            self._expand([(pid, h.score) for pid, h in seeds], hits, cfg)
        ranked = [
            kv
            for kv in sorted(hits.items(), key=lambda kv: (-kv[1].score, kv[0]))
            if kv[0] not in self.containers
        ]
        items = [
            RetrievedItem(
                corpus=self.corpus,
                id=pid,
                score=round(h.score, 6),
                via=tuple(h.via),
                path=h.path,
                why="; ".join(h.why[:3]),
            )
            for pid, h in ranked[: cfg.top_n]
        ]
        relevance = dense_items[0].score if dense_items else 0.0
        timings = {"match": t1 - t0, "traverse": time.perf_counter() - t1}
        return RetrievalResult(
            items=items,
            decomposition=Decomposition(),
            mode="edition",
            evidence=0.0,
            relevance=relevance,
            timings=timings,
        )

    def _expand(self, seeds: list[tuple[str, float]], hits: dict[str, Hit], cfg: RetrievalConfig) -> None:
        """Add what the seeds cross-reference (up to ``cfg.depth`` hops), their parents and children,
        each with the seed's score decayed per hop (`DECAY`)."""
        for pid, score in seeds:
            for step in traverse(self.nav, pid, depth=cfg.depth, parents=cfg.parents, children=cfg.children):
                hit = hits.setdefault(step.id, Hit(path=step.path))
                hit.add(score * DECAY[step.via] ** step.hops, step.via, step.why, step.path)
