"""Which sentence an extractive answer leads with: the one that holds the fact the question asks for.

Rules for any rulebook, no fitted weights. What the question asks for comes from the answerability detector
(`bifrost.retrieval.answerability.question_kinds.detect`), and a sentence holds that kind of fact when
`has_fact` says so (a number with a compatible unit, a frequency, a role, ...). For a yes/no question nearly
every rule sentence has a modal, so a sentence that states a condition ("only", "shall not", "except",
"unless", "may") is preferred to a bare "shall". Among the sentences that hold the fact, the lead is the one
of the best-ranked provision (closest to the question within it). The other provisions follow in reading order
(their order in the rulebook). When a question asks for a kind of fact and no sentence holds it, the answer is
open: it says so before quoting what it found.
"""

from __future__ import annotations

import re

from collections.abc import Sequence

import numpy as np

from bifrost.core.embeddings import Embedder
from bifrost.core.types import Provision
from bifrost.retrieval.answer.base import Candidate, LeadPlan
from bifrost.retrieval.answerability.question_kinds import Ask, Asks, has_fact, states_condition

OPEN_WHAT: dict[Asks, str] = {
    Asks.QUANTITY: "the value asked for",
    Asks.FREQUENCY: "how often",
    Asks.DURATION: "how long",
    Asks.PROPERTY: "the property asked for",
    Asks.YES_NO: "a rule that settles it",
    Asks.WHO: "who",
    Asks.WHEN: "when",
}


def open_note(ask: Ask) -> str:
    """The one sentence that says the cited provisions leave the question open."""
    what = (
        f"the {ask.prop} asked for"
        if ask.kind is Asks.PROPERTY and ask.prop
        else OPEN_WHAT.get(ask.kind, "the answer")
    )
    return f"The cited provisions leave this open: none of them states {what}."


def fact_level(sentence: str, ask: Ask) -> int:
    """0: the sentence holds no fact of the asked-for kind; 1: it does; 2: a yes/no condition too."""
    if ask.kind is Asks.OTHER or not has_fact(sentence, ask):
        return 0
    return 2 if ask.kind is Asks.YES_NO and states_condition(sentence) else 1


def candidates(
    question_vec: np.ndarray, ranked: Sequence[Provision], split, embedder: Embedder, ask: Ask
) -> list[Candidate]:
    """Every sentence of every ranked provision with text, scored against the question."""
    rows = [(rank, p, s) for rank, p in enumerate(ranked) for s in split(p.text)]
    if not rows:
        return []
    sims = embedder.embed([s for _, _, s in rows]) @ question_vec
    return [Candidate(rank, p, s, float(c), fact_level(s, ask)) for (rank, p, s), c in zip(rows, sims)]


_LIST_INTRO = re.compile(
    r"\b(?:the following|as follows|these (?:provisions|requirements))\b[^.]*[.:]?\s*$|:\s*$", re.I
)
"""A sentence that only opens a list ("The plan must conform to the following provisions."): it states
nothing."""


def best_of(cands: Sequence[Candidate]) -> Candidate:
    """The sentence a provision is stated by: its best fact sentence, else its closest sentence; a sentence
    that only opens a list comes last (it says nothing of its own)."""
    return max(cands, key=lambda c: (not _LIST_INTRO.search(c.sentence), c.fact, c.cosine))


def plan(cands: Sequence[Candidate], ask: Ask) -> LeadPlan | None:
    """Lead with the best-ranked provision holding the asked-for fact; the rest in reading order.

    None when there is no candidate sentence at all."""
    if not cands:
        return None
    by_provision: dict[str, list[Candidate]] = {}
    for c in cands:
        by_provision.setdefault(c.provision.id, []).append(c)
    stated = [best_of(cs) for cs in by_provision.values()]  # one sentence per provision, in rank order
    top = max(c.fact for c in stated)
    holding = [c for c in stated if c.fact == top] if top else []
    lead = min(holding, key=lambda c: c.rank) if holding else stated[0]
    rest = sorted((c for c in stated if c is not lead), key=lambda c: (c.provision.order, c.rank))
    return LeadPlan(lead=lead, rest=tuple(rest), open=ask.kind is not Asks.OTHER and not top)
