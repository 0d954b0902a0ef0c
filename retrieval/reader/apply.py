"""What the reader decides at question time, for any rulebook: pure functions of its scores.

- **what to cite**: the read candidates scoring at or above the cite cut, best reader score first (at
  least the best one: a question judged answerable cites something), at most ``most``;
- **whether it is stated**: the best score over the top candidates and their sentences, against the
  "stated" cut (below it: the closest provisions do not state it);
- **which sentence decides a verdict**: the reader's best-scored sentence among the cited rule
  provisions' sentences; the deontic patterns then read that sentence alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from bifrost.core.types import Provision
from bifrost.core.sentences import sentences
from bifrost.core.provisions import own_text

READ_TOP = 20
"""Ranked candidates the reader reads per question (its cost grows with this)."""
STATED_TOP = 3
"""Top candidates whose best score says whether the text states the answer."""
Lookup = Callable[[str], Provision | None]


class Scores(Protocol):
    def score(self, question: str, texts: Sequence[str]) -> np.ndarray: ...


@dataclass
class Reading:
    """The reader's scores of one question's top candidates (rank order), and of sentences asked later."""

    question: str
    ids: list[str]
    scores: list[float]
    sentence_scores: dict[str, float] = field(default_factory=dict)

    def of(self, pid: str) -> float | None:
        return self.scores[self.ids.index(pid)] if pid in self.ids else None

    @property
    def best(self) -> float:
        return max(self.scores[:STATED_TOP], default=0.0)


def read(reader: Scores, question: str, ids: Sequence[str], lookup: Lookup, top: int = READ_TOP) -> Reading:
    """Score the top ``top`` candidates that have text."""
    texts = {pid: own_text(p) for pid in ids[:top] if (p := lookup(pid)) is not None and own_text(p)}
    kept = [pid for pid in ids[:top] if pid in texts]
    scores = reader.score(question, [texts[pid] for pid in kept]).tolist() if kept else []
    return Reading(question, kept, [float(s) for s in scores])


def extend(reading: Reading, reader: Scores, ids: Sequence[str], lookup: Lookup) -> Reading:
    """Also score ``ids`` not read yet (provisions the answer plan joined from the graph)."""
    new = [
        pid
        for pid in dict.fromkeys(ids)
        if pid not in reading.ids and (p := lookup(pid)) is not None and own_text(p)
    ]
    if new:
        scores = reader.score(reading.question, [own_text(lookup(pid)) for pid in new])  # type: ignore[arg-type]
        reading.ids += new
        reading.scores += [float(s) for s in scores]
    return reading


def cited(reading: Reading, cut: float, most: int, among: int = READ_TOP) -> list[str]:
    """The provisions to cite: the first ``among`` read ones scoring >= ``cut`` by reader score (ties: rank),
    at least the best one, at most ``most``."""
    order = sorted(range(min(among, len(reading.ids))), key=lambda i: (-reading.scores[i], i))
    chosen = [reading.ids[i] for i in order if reading.scores[i] >= cut][:most]
    if not order:
        return []
    return chosen or [reading.ids[order[0]]]


def stated(reading: Reading, cut: float) -> bool:
    """Whether any top candidate states what is asked (no candidate read: not stated)."""
    return bool(reading.ids) and reading.best >= cut


def deciding_sentence(
    reading: Reading, reader: Scores, pids: Sequence[str], lookup: Lookup
) -> tuple[str, str] | None:
    """(provision id, sentence) of the best-scored sentence of ``pids``' texts, or None without sentences."""
    pairs = [
        (pid, s) for pid in dict.fromkeys(pids) if (p := lookup(pid)) is not None for s in sentences(p.text)
    ]
    if not pairs:
        return None
    scores = reader.score(reading.question, [s for _, s in pairs])
    for (pid, s), v in zip(pairs, scores):
        reading.sentence_scores[f"{pid}\t{s}"] = float(v)
    return pairs[int(np.argmax(scores))]
