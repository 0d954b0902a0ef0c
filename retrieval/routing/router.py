"""Which corpora of a home a question is asked of: the stored router scores every corpus named
(`model.RouterModel` over `features.feature_rows`); the likeliest is asked, with any other more likely than
not. A question that belongs to no corpus of the home is answered by the likeliest, whose answer says where
similar questions were answered (`answerability.elsewhere`; a bar sending such questions to none was measured
and removed: docs/results.md)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bifrost.core.answer_types import CorpusChance
from bifrost.retrieval.channels.base import Channels
from bifrost.retrieval.routing.features import Letters, feature_rows
from bifrost.retrieval.routing.model import ASK_ALSO, RouterModel


def home_letters(channels: Mapping[str, Channels]) -> Letters:
    """Every answered question the corpora's precedent banks hold, once each (by id), with the corpora of
    ``channels`` that answer it."""
    seen: dict[str, tuple] = {}
    for ch in channels.values():
        for index in (ch.precedents, ch.outside):
            if index is None:
                continue
            for p, v in zip(index.precedents, index.vectors):
                seen.setdefault(p.id, (p, v))
    holds = {c: frozenset(ch.ids) for c, ch in channels.items()}
    precedents = [p for p, _ in seen.values()]
    vectors = np.array([v for _, v in seen.values()], np.float32) if seen else np.zeros((0, 1), np.float32)
    return Letters.of(precedents, vectors, holds)


def asked(corpora: Sequence[str], p: np.ndarray) -> list[CorpusChance]:
    """The corpora, likeliest first, each marked asked or not."""
    order = sorted(range(len(corpora)), key=lambda j: -float(p[j]))
    return [
        CorpusChance(
            corpus=corpora[j], probability=round(float(p[j]), 4), asked=rank == 0 or float(p[j]) >= ASK_ALSO
        )
        for rank, j in enumerate(order)
    ]


@dataclass
class CorpusRouter:
    """The router over some corpora of a home: their channels, the answered questions, and the embedder."""

    model: RouterModel
    channels: Mapping[str, Channels]
    letters: Letters
    embed: Callable[[list[str]], np.ndarray]

    def route(self, question: str, exclude: Collection[str] = ()) -> list[CorpusChance]:
        """How likely each corpus is to hold the rule, likeliest first, and which are asked; ``exclude``: the
        question's own answered questions (never its neighbours)."""
        vectors = np.asarray(self.embed([question]), np.float32)
        rows = feature_rows(vectors, [question], self.channels, self.letters, [self.letters.own(exclude)])
        return asked(list(self.channels), self.model.probabilities(rows)[0])
