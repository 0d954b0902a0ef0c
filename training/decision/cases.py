"""The questions a decision model learns from and is scored on, each gathered once (channel evidence,
candidate pool, ranker feature rows, its own precedents left out) and then ranked by rankers fitted without
some sets (`Rankers`), so that every figure comes from a ranker that never saw the set scored (nested)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bifrost.eval.questions import Question, own_answers
from bifrost.core.errors import BifrostError
from bifrost.retrieval.answer.decision import Inputs, inputs_of, selector_rows
from bifrost.retrieval.answer.verdict_features import deciding_sentence
from bifrost.retrieval.channels.base import Evidence
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.ranking.ltr.candidates import Pool, PoolSizes
from bifrost.retrieval.ranking.ltr.features import columns_without
from bifrost.retrieval.ranking.ltr.model import ModelCard, RankerModel
from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever, question_rows
from bifrost.retrieval.result import RetrievalResult
from bifrost.training.ranker.cv import choose_delta, fit
from bifrost.training.ranker.dataset import Group

Progress = Callable[[int, int], None]


@dataclass
class Gathered:
    """One question's evidence, candidate pool and ranker rows, with the set it came from."""

    question: Question
    source: str
    ev: Evidence
    pool: Pool
    rows: np.ndarray

    def group(self) -> Group:
        gold = set(self.question.gold)
        labels = np.array([pid in gold for pid in self.pool.ids], dtype=np.int32)
        return Group(self.question, self.pool.ids, self.rows, labels, self.ev.relevance, {}, self.source)


def gather(
    pipe: AskPipeline,
    corpus: str,
    pairs: Sequence[tuple[Question, str]],
    cfg: RetrievalConfig,
    progress: Progress | None = None,
) -> list[Gathered]:
    """Every answerable question with gold, gathered as `ask` gathers it (its own precedents left out)."""
    parts = pipe.parts(corpus)
    wanted = [(q, s) for q, s in pairs if q.answerable and q.gold]
    parts.prepare([q.question for q, _ in wanted], cfg)
    out = []
    for n, (q, source) in enumerate(wanted, start=1):
        ev, pool, rows = question_rows(
            parts.channels, parts.nav, q.question, cfg, PoolSizes(), own_answers(q)
        )
        out.append(Gathered(q, source, ev, pool, rows))
        if progress:
            progress(n, len(wanted))
    return out


class Rankers:
    """Learned rankers fitted on the stored ranker's question sets less some of them, each fitted once."""

    def __init__(
        self,
        gathered: Sequence[Gathered],
        ranker_sets: Collection[str],
        card: ModelCard,
        cite_max: int,
        seed: int,
    ) -> None:
        self.gathered, self.ranker_sets, self.card = gathered, set(ranker_sets), card
        self.cite_max, self.seed = cite_max, seed
        self.size = {k: card.params[k] for k in ("num_leaves", "n_estimators") if k in card.params} or None
        self._fitted: dict[frozenset[str], RankerModel] = {}

    def without(self, out: Collection[str]) -> tuple[frozenset[str], RankerModel]:
        """(the sets fitted on, the ranker) fitted on the ranker's sets less ``out``."""
        kept = frozenset(s for s in self.ranker_sets if s not in set(out))
        if not kept:
            raise BifrostError(
                f"the ranker was trained on {', '.join(sorted(self.ranker_sets))} only: with "
                f"{', '.join(sorted(set(out)))} left out no set is left to fit a nested ranker on; train the "
                "ranker on one more question set (or pass --no-validate)"
            )
        if kept not in self._fitted:
            groups = [g.group() for g in self.gathered if g.source in kept]
            columns = columns_without(set())
            booster = fit(groups, columns, self.size, self.seed)
            card = ModelCard(
                **{**self.card.__dict__, "cite_delta": choose_delta(booster, groups, columns, self.cite_max)}
            )
            self._fitted[kept] = RankerModel(booster, card)
        return kept, self._fitted[kept]


@dataclass
class Case:
    """A question ranked by one ranker, read by the decision's selector: its candidates, their rows, labels
    and deciding sentences."""

    question: Question
    source: str
    result: RetrievalResult
    inputs: Inputs
    at: list[int]
    rows: np.ndarray
    sentences: list[str]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return [self.inputs.ids[i] for i in self.at]

    @property
    def labels(self) -> np.ndarray:
        gold = set(self.question.gold)
        return np.array([pid in gold for pid in self.ids], dtype=np.int32)

    @property
    def decisive(self) -> set[str]:
        """The provisions the question's label says decide it (real questions give one id, written ones a
        list of {id, quote})."""
        d = self.question.extra.get("decisive")
        if isinstance(d, str):
            return {d}
        if isinstance(d, list):
            return {x["id"] if isinstance(x, dict) else str(x) for x in d}
        return set()

    @property
    def verdict(self) -> str | None:
        v = self.question.extra.get("verdict")
        return v if v in ("yes", "no", "depends") else None


def case_of(pipe: AskPipeline, corpus: str, g: Gathered, model: RankerModel, cfg: RetrievalConfig) -> Case:
    """One gathered question ranked by ``model`` and read as `ask` reads it (named provisions first, its
    facts), with the decision's selector rows."""
    parts = pipe.parts(corpus)
    result = LtrRetriever(parts.channels, parts.nav, model, cfg).ranked(g.ev, g.pool, g.rows, cfg)
    result = pipe.read_named(corpus, result, g.question.question, cfg, own_answers(g.question))
    planner = pipe.planner(corpus)
    lookup = pipe.lookup(corpus)
    inputs = inputs_of(
        g.question.question,
        result,
        result.facts,
        planner.asks(result),
        planner.nav,
        planner.tokenize,
        lookup,
        planner.words,
    )
    if inputs is None:
        raise ValueError(f"question {g.question.id}: the ranker ranked nothing")
    at, rows = selector_rows(inputs)
    text = lambda pid: p.text if (p := lookup(pid)) is not None else ""  # noqa: E731
    sentences = [
        deciding_sentence(
            planner.nav.requirements.get(inputs.ids[i], ()), inputs.asks, inputs.tokenize, text(inputs.ids[i])
        )
        for i in at
    ]
    return Case(g.question, g.source, result, inputs, at, rows, sentences)
