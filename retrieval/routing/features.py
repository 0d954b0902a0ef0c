"""What the corpus router reads for a question and one corpus, alike for any rulebook: how close the corpus's
closest provisions are in meaning (the best and the fifth-best cosine), how much of the question's rare words
one provision holds (IDF-weighted term coverage), and the share of the question's nearest answered questions
that the corpus answers (it holds a section they cite)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bifrost.core.precedent_types import Precedent
from bifrost.retrieval.channels.base import Channels

COLUMNS = ("best_cosine", "fifth_cosine", "term_coverage", "letters_share")
NEAR_LETTERS = 10
"""Nearest answered questions whose corpora the letters' share counts."""
FIFTH = 5


def section_of(written: str) -> str:
    """A citation cut to its section ("1904.7(b)(1)" -> "1904.7")."""
    return written.split("(")[0].strip()


def answering(precedent: Precedent, holds: Mapping[str, Collection[str]]) -> frozenset[str]:
    """The corpora holding a provision or section an answered question cites (``holds``: corpus -> ids)."""
    cited = {c.written.strip() for c in precedent.cites} | {section_of(c.written) for c in precedent.cites}
    return frozenset(corpus for corpus, ids in holds.items() if any(c in ids for c in cited))


@dataclass(frozen=True)
class Letters:
    """Answered questions (their vectors) and the corpora of the home that answer each."""

    precedents: tuple[Precedent, ...]
    vectors: np.ndarray
    answered_by: tuple[frozenset[str], ...]

    @classmethod
    def of(
        cls, precedents: Sequence[Precedent], vectors: np.ndarray, holds: Mapping[str, Collection[str]]
    ) -> Letters:
        return cls(tuple(precedents), vectors, tuple(answering(p, holds) for p in precedents))

    def own(self, exclude: Collection[str]) -> np.ndarray:
        """Indexes of the question's own answered questions (by id or source URL): never its neighbours."""
        wanted = set(exclude)
        return np.array(
            [i for i, p in enumerate(self.precedents) if p.id in wanted or (p.url and p.url in wanted)], int
        )

    def share(
        self, vectors: np.ndarray, corpora: Sequence[str], own: Sequence[np.ndarray] | None = None
    ) -> np.ndarray:
        """(questions, corpora): the share of each question's `NEAR_LETTERS` nearest answered questions
        (never its own, ``own[i]``) that each corpus answers; zeros with no answered question."""
        out = np.zeros((len(vectors), len(corpora)), np.float32)
        if not len(self.precedents) or not len(vectors):
            return out
        sims = np.asarray(vectors @ self.vectors.T, np.float32)
        for i, mine in enumerate(own or ()):
            sims[i, mine] = -np.inf
        k = min(NEAR_LETTERS, sims.shape[1])
        near = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for j, corpus in enumerate(corpora):
            answers = np.array([corpus in a for a in self.answered_by], np.float32)
            out[:, j] = answers[near].mean(axis=1)
        return out


def closeness(vectors: np.ndarray, texts: Sequence[str], channels: Channels) -> np.ndarray:
    """(questions, 3): the best and the fifth-best cosine to the corpus's provisions, and the best
    IDF-weighted share of the question's terms one provision holds."""
    matrix = channels.dense.matrix
    cos = np.asarray(vectors @ matrix.T, np.float32)
    fifth = min(FIFTH, cos.shape[1])
    best = -np.partition(-cos, fifth - 1, axis=1)[:, :fifth]  # the five highest, unordered
    top = -np.sort(-best, axis=1)
    cover = np.array([float(channels.bm25.coverage(t)[1].max(initial=0.0)) for t in texts], np.float32)
    return np.column_stack([top[:, 0], top[:, fifth - 1], cover]).astype(np.float32)


def feature_rows(
    vectors: np.ndarray,
    texts: Sequence[str],
    channels: Mapping[str, Channels],
    letters: Letters,
    own: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """(questions, corpora, `COLUMNS`): every column for every question and corpus, corpora in
    ``channels``' order."""
    corpora = list(channels)
    share = letters.share(vectors, corpora, own)
    return np.stack(
        [
            np.column_stack([closeness(vectors, texts, channels[c]), share[:, j]])
            for j, c in enumerate(corpora)
        ],
        axis=1,
    )
