"""What every retriever returns (`RetrievalResult`), the per-provision accumulator a ranking is
built in (`Hit`), and how much of a seed's score a navigator neighbour keeps (`DECAY`). The hybrid,
the learned ranker and edition retrieval return the same record; answering and answerability read it."""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field

from bifrost.core.precedent_types import ResolvedCite
from bifrost.core.answer_types import RetrievedItem, Via
from bifrost.retrieval.decompose import Decomposition
from bifrost.retrieval.channels.precedents import PrecedentVotes

DECAY = {Via.REFERS_TO: 0.7, Via.PARENT: 0.5, Via.CHILD: 0.6, Via.SIBLING: 0.35}
"""How much of a seed's score an expansion keeps, per way of reaching it (per hop for REFERS_TO)."""


@dataclass
class Hit:
    """One provision while a ranking is built: best score so far, the ways it was reached (each
    with its reason, first one first) and the path of its best score."""

    score: float = 0.0
    via: list[Via] = field(default_factory=list)
    path: tuple[str, ...] = ()
    why: list[str] = field(default_factory=list)

    def add(self, score: float, via: Via, why: str, path: tuple[str, ...] = ()) -> None:
        """Record one more way of reaching the provision; keep the higher score (and its path, if given)."""
        if via not in self.via:
            self.via.append(via)
            self.why.append(why)
        if score > self.score:
            self.score = score
            if path:
                self.path = path


@dataclass
class RetrievalResult:
    """Ranked provisions with the evidence behind them."""

    items: list[RetrievedItem]
    decomposition: Decomposition
    mode: str
    evidence: float  # best cosine between a question entity and an entity of the corpus
    relevance: float  # best cosine between the question and a provision (dense channel), else evidence
    timings: dict[str, float]
    cited: list[RetrievedItem] | None = None  # the answer-sized set when the ranker chose one
    named: list[ResolvedCite] | None = None  # provisions the question names (None: not read)
    votes: PrecedentVotes | None = None  # what similar answered questions cite (None: not read)
    figures: tuple | None = None  # the question's figures with what each measures (None: not read)
    whole: tuple[str, ...] = ()  # provisions the answer states whole (a question asking only what they say)
    # the question's facts, read once at the start of `ask` (`bifrost.retrieval.answer.question_facts`)
    facts: Any = None
    # the learned ranker's feature row of each ranked item (None: another retriever), what the decision reads
    features: dict[str, Any] | None = None
    # the most similar answered questions that cite nothing of the corpus (None: not read)
    outside: list[Any] | None = None
