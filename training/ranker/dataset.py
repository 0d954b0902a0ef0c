"""Question sets turned into ranking groups: each question's candidate pool, feature rows and
labels (1 for a gold provision), plus the baselines' rankings on the same evidence."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from bifrost.eval.metrics import lead_in_gold_section
from bifrost.eval.questions import Question, own_answers
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.fusion import rrf_fuse
from bifrost.retrieval.corpus_parts import CorpusParts
from bifrost.retrieval.ranking.ltr.candidates import PoolSizes
from bifrost.retrieval.ranking.ltr.retriever import question_rows

Progress = Callable[[int, int], None]
BASELINE_DEPTH = 100  # as the rrf baseline of `bifrost eval` (RrfRanker depth)


@dataclass
class Group:
    """One question: its candidates with feature rows and labels, and what the baselines ranked."""

    question: Question
    ids: list[str]
    rows: np.ndarray
    labels: np.ndarray
    relevance: float
    baselines: dict[str, list[str]] = field(default_factory=dict)
    source: str = ""  # the question set it came from (leave-one-set-out splits by it)
    # the enclosing section of every provision of the corpus (shared by the groups of one collection)
    sections: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def gold(self) -> list[str]:
        return list(self.question.gold)

    def lead_in_gold_section(self, ranked: Sequence[str]) -> float:
        """1 when the first of ``ranked`` lies in the section of a gold provision (0 without sections)."""
        section_of = lambda pid: self.sections.get(pid, pid)  # noqa: E731
        return float(bool(self.sections) and lead_in_gold_section(ranked, self.gold, section_of))

    @property
    def trainable(self) -> bool:
        """A group teaches the ranker only when a gold provision is among its candidates."""
        return bool(self.labels.any())


def collect(
    parts: CorpusParts,
    questions: Sequence[Question],
    cfg: RetrievalConfig,
    hybrid: bool = True,
    sizes: PoolSizes = PoolSizes(),
    progress: Progress | None = None,
    also_exclude: Collection[str] = (),
) -> list[Group]:
    """Ranking groups of every answerable question with gold (others cannot be ranked); each question's own
    precedents are left out, and ``also_exclude`` (precedent ids or URLs) for every question."""
    ids = parts.channels.ids
    hyb = parts.hybrid(cfg.model_copy(update={"ranker": "hybrid"})) if hybrid else None
    wanted = [q for q in questions if q.answerable and q.gold]
    parts.prepare([q.question for q in wanted], cfg)
    groups: list[Group] = []
    for n, q in enumerate(wanted, start=1):
        ev, pool, rows = question_rows(
            parts.channels, parts.nav, q.question, cfg, sizes, (*own_answers(q), *also_exclude)
        )
        gold = set(q.gold)
        bm25 = [ids[i] for i in np.argsort(-ev.bm25, kind="stable")[:BASELINE_DEPTH] if ev.bm25[i] > 0]
        cosine = ev.dense if ev.cosine is None else ev.cosine  # the baselines read the embedding model
        dense = [ids[i] for i in np.argsort(-cosine, kind="stable")[:BASELINE_DEPTH]]
        base: dict[str, list[str]] = {
            "bm25": bm25,
            "dense": dense,
            "rrf": [pid for pid, _ in rrf_fuse([bm25, dense])],
        }
        if ev.cosine is not None:  # and under the adapted encoder the ranker reads
            adapted = [ids[i] for i in np.argsort(-ev.dense, kind="stable")[:BASELINE_DEPTH]]
            base["dense-adapted"] = adapted
            base["rrf-adapted"] = [pid for pid, _ in rrf_fuse([bm25, adapted])]
        if hyb is not None:
            base["bifrost-hybrid"] = [it.id for it in hyb.retrieve(q.question).items]
        groups.append(
            Group(
                q,
                pool.ids,
                rows,
                np.array([pid in gold for pid in pool.ids], dtype=np.int32),
                ev.relevance,
                base,
                sections=parts.nav.section,
            )
        )
        if progress:
            progress(n, len(wanted))
    return groups


def describe_pool(groups: Sequence[Group]) -> dict[str, Any]:
    """How much gold the candidate pools hold (the ceiling of any ranking over them)."""
    found = [len(set(g.ids) & set(g.gold)) / len(g.gold) for g in groups]
    return {
        "questions": len(groups),
        "mean_candidates": float(np.mean([len(g.ids) for g in groups])) if groups else 0.0,
        "gold_recall_of_pool": float(np.mean(found)) if found else 0.0,
        "trainable_questions": sum(g.trainable for g in groups),
    }
