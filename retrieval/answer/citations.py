"""Citations: which retrieved provisions an answer cites, and parsing `[id]` marks in text."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bifrost.core.answer_types import Citation, RetrievedItem
from bifrost.core.sentences import sentences
from bifrost.core.types import Provision

CITE_MARK = re.compile(r"\[([^\[\]]{1,200})\]")
SCORE_TIE = 1e-6
"""Retrieved scores are rounded to six decimals: a score within one unit of that place of the cut is at
the cut. A parent scored exactly DECAY x its child sits on a 0.5 cut, and float noise in the last place
must not decide whether it is cited."""


def select_cited(items: Sequence[RetrievedItem], ratio: float, most: int) -> list[RetrievedItem]:
    """Items scoring at least ``ratio`` of the best, at most ``most`` of them, best first."""
    if not items:
        return []
    best = items[0].score
    return [it for it in items if it.score >= ratio * best - SCORE_TIE][:most]


def cited_items(
    items: Sequence[RetrievedItem], chosen: Sequence[RetrievedItem] | None, ratio: float, most: int
) -> list[RetrievedItem]:
    """The set an answer cites: the ranker's own answer-sized set when it chose one, else by
    `select_cited`."""
    return list(chosen)[:most] if chosen is not None else select_cited(items, ratio, most)


def find_marks(text: str) -> list[str]:
    """Provision ids cited as ``[id]`` in a text, in order of appearance."""
    return [m.group(1).strip() for m in CITE_MARK.finditer(text)]


def to_citation(p: Provision) -> Citation:
    return Citation(corpus=p.corpus, id=p.id, heading=p.heading, text=p.text, url=p.url)


def citations_for(ids: Sequence[str], lookup: Callable[[str], Provision | None]) -> list[Citation]:
    """Citation records for ids, in order, skipping ids that do not resolve."""
    out = []
    for pid in dict.fromkeys(ids):
        p = lookup(pid)
        if p is not None:
            out.append(to_citation(p))
    return out


def related_for(ids: Sequence[str], lookup: Callable[[str], Provision | None]) -> list[Citation]:
    """Related provisions as the answer lists them apart: id, heading, link and their first sentence (so that
    a paragraph without a heading of its own is more than a bare id)."""
    return [
        c.model_copy(update={"text": next(iter(sentences(c.text)), "")[:FIRST_SENTENCE]})
        for c in citations_for(ids, lookup)
    ]


FIRST_SENTENCE = 300
"""Characters of a related provision's first sentence shown at most."""
