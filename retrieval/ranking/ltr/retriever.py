"""Retrieval with the learned ranker: gather channel evidence, pool candidates, score their
features with the model, and cut an answer-sized cited set by score."""

from __future__ import annotations

import time
from collections.abc import Collection

import numpy as np

from bifrost.core.answer_types import RetrievedItem
from bifrost.retrieval.channels.base import Channels, Evidence
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.channels.entity_index import EngIndex
from bifrost.retrieval.ranking.ltr.candidates import Pool, PoolSizes, build_pool
from bifrost.retrieval.ranking.ltr.features import featurize
from bifrost.retrieval.ranking.ltr.model import RankerModel
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.result import RetrievalResult


def question_rows(
    channels: Channels,
    nav: NavigatorIndex,
    question: str,
    cfg: RetrievalConfig,
    sizes: PoolSizes = PoolSizes(),
    exclude: Collection[str] = (),
) -> tuple[Evidence, Pool, np.ndarray]:
    """Evidence, candidate pool and feature rows of one question (training and answering share this);
    ``exclude``: the question's own precedents (ids, source URLs), never used."""
    ev = channels.gather(question, cfg, exclude)
    pool = build_pool(ev, channels.ids, nav, sizes, channels.position)
    return ev, pool, featurize(ev, pool, nav, channels.position)


def cut_cited(scores: np.ndarray, delta: float, most: int) -> int:
    """How many of the best-first ``scores`` to cite: those within ``delta`` of the top, 1 to ``most``."""
    if len(scores) == 0:
        return 0
    return int(max(1, min(most, int(np.sum(scores >= scores[0] - delta)))))


class LtrRetriever:
    """Candidates from every channel ranked by a LambdaRank model over graph and text features."""

    def __init__(
        self,
        channels: Channels,
        nav: NavigatorIndex,
        model: RankerModel,
        config: RetrievalConfig,
        sizes: PoolSizes = PoolSizes(),
    ) -> None:
        self.channels, self.nav, self.model, self.config, self.sizes = channels, nav, model, config, sizes

    @property
    def index(self) -> EngIndex:
        return self.channels.index

    def candidates(
        self, question: str, cfg: RetrievalConfig, exclude: Collection[str] = ()
    ) -> tuple[Evidence, Pool, np.ndarray]:
        return question_rows(self.channels, self.nav, question, cfg, self.sizes, exclude)

    def retrieve(
        self, question: str, config: RetrievalConfig | None = None, exclude: Collection[str] = ()
    ) -> RetrievalResult:
        cfg = config or self.config
        t0 = time.perf_counter()
        ev, pool, rows = self.candidates(question, cfg, exclude)
        result = self.ranked(ev, pool, rows, cfg, t0)
        gathered = sum(ev.timings.values())
        stages = {f"candidates.{k}": v for k, v in ev.timings.items()}
        stages["candidates.pool_features"] = result.timings["candidates"] - gathered
        result.timings.update(stages)
        return result

    def ranked(
        self, ev: Evidence, pool: Pool, rows: np.ndarray, cfg: RetrievalConfig, t0: float | None = None
    ) -> RetrievalResult:
        """The result of candidates already collected (`candidates`), ranked by this model."""
        t1 = time.perf_counter()
        t0 = t1 if t0 is None else t0
        scores = self.model.score(rows)
        order = np.argsort(-scores, kind="stable")[: cfg.top_n]
        items = [
            RetrievedItem(
                corpus=self.index.corpus,
                id=pool.ids[i],
                score=round(float(scores[i]), 6),
                via=tuple(pool.via[pool.ids[i]]),
                path=pool.path.get(pool.ids[i], (pool.ids[i],)),
                why="; ".join(pool.why[pool.ids[i]][:3]),
            )
            for i in order
        ]
        n_cited = cut_cited(scores[order], self.model.card.cite_delta, cfg.cite_max)
        t2 = time.perf_counter()
        return RetrievalResult(
            items=items,
            decomposition=ev.decomposition,
            mode="ltr",
            evidence=ev.entity_evidence,
            relevance=ev.relevance,
            timings={"candidates": t1 - t0, "rank": t2 - t1},
            cited=items[:n_cited],
            named=ev.named,
            votes=ev.votes,
            figures=ev.figures,
            features={pool.ids[i]: rows[i] for i in order},
            outside=ev.outside,
        )
