"""Extractive answers (no chat model): sentences of the cited provisions, the answering one first.

Every statement is a sentence of the regulation itself, cited and quoted (the sentence is its own supporting
span, checked by `bifrost.retrieval.answer.quotes` like an LLM's quote); a provision without text (a heading
only) has nothing to quote and is not stated. With ``lead="fact"`` (the default) the answer leads with the
sentence that holds the fact the question asks for and says so when the cited provisions leave the question
open (`bifrost.retrieval.answer.lead_sentence`); ``lead="rank"`` is the earlier answer: each provision's
sentence closest to the question, in rank order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from bifrost.core.embeddings import Embedder
from bifrost.core.answer_types import RetrievedItem, Statement
from bifrost.core.types import Provision
from bifrost.retrieval.answer.base import Candidate
from bifrost.retrieval.answer.lead_sentence import candidates, open_note, plan
from bifrost.retrieval.answerability.question_kinds import Ask, Asks, detect
from bifrost.retrieval.answer.base import DraftStatement, QuoteClaim
from bifrost.retrieval.answer.quotes import check_statements
from bifrost.core.sentences import sentences


def best_sentence(question_vec: np.ndarray, p: Provision, embedder: Embedder) -> str:
    """The sentence of a provision's text closest to the question ("" when it has no text)."""
    cands = sentences(p.text)
    if not cands:
        return ""
    if len(cands) == 1:
        return cands[0]
    sims = embedder.embed(cands) @ question_vec
    return cands[int(np.argmax(sims))]


Lead = Literal["fact", "rank"]


def extractive_statements(
    question: str,
    cited: Sequence[RetrievedItem],
    lookup: Callable[[str], Provision | None],
    embedder: Embedder,
    lead: Lead = "fact",
    reach: Sequence[RetrievedItem] = (),
    ask: Ask | None = None,
) -> list[Statement]:
    """One cited statement per cited provision with text, quoting its sentence; duplicates dropped.

    ``lead="fact"``: the answering sentence first, the others in reading order, an open note first
    when no sentence holds the asked-for fact; ``reach`` are further ranked items searched for that
    fact when the cited ones lack it (the first that holds it joins the answer). ``lead="rank"``: rank
    order."""
    qv = embedder.embed([question])[0]
    provisions = _provisions(cited, lookup)
    if lead == "rank":
        return _checked([(p.id, best_sentence(qv, p, embedder)) for p in provisions], lookup)
    ask = ask if ask is not None else detect(question)  # read once by the caller, when it can
    cands = candidates(qv, provisions, sentences, embedder, ask)
    if ask.kind is not Asks.OTHER and not any(c.fact for c in cands):
        cands += _first_holding(
            qv, [p for p in _provisions(reach, lookup) if p not in provisions], embedder, ask, len(provisions)
        )
    answer = plan(cands, ask)
    if answer is None:
        return []
    said: list[Candidate] = [answer.lead, *answer.rest]
    if answer.open:
        said = sorted(said, key=lambda c: (c.provision.order, c.rank))
    drafts = [(c.provision.id, c.sentence) for c in said]
    note = [
        DraftStatement(
            open_note(ask),
            (answer.lead.provision.id,),
            (QuoteClaim(answer.lead.provision.id, answer.lead.sentence),),
        )
    ]
    return (
        check_statements(note, lookup).statements + _checked(drafts, lookup)
        if answer.open
        else _checked(drafts, lookup)
    )


def _provisions(items: Sequence[RetrievedItem], lookup: Callable[[str], Provision | None]) -> list[Provision]:
    """The provisions of ranked items, in rank order, each once."""
    out: list[Provision] = []
    for it in items:
        p = lookup(it.id)
        if p is not None and p not in out:
            out.append(p)
    return out


def _first_holding(
    qv: np.ndarray, further: Sequence[Provision], embedder: Embedder, ask, after: int
) -> list[Candidate]:
    """The sentences of the best-ranked further provision that holds the asked-for fact ([] if none)."""
    for i, p in enumerate(further):
        cands = candidates(qv, [p], sentences, embedder, ask)
        if any(c.fact for c in cands):
            return [Candidate(after + i, c.provision, c.sentence, c.cosine, c.fact) for c in cands]
    return []


def _checked(drafts: Sequence[tuple[str, str]], lookup: Callable[[str], Provision | None]) -> list[Statement]:
    """Statements quoting (provision id, sentence) pairs, each sentence once, through the quote checker."""
    out: list[DraftStatement] = []
    seen: set[str] = set()
    for pid, text in drafts:
        if text and text not in seen:
            seen.add(text)
            out.append(DraftStatement(text=text, citations=(pid,), claims=(QuoteClaim(pid, text),)))
    return check_statements(out, lookup).statements


ROLE_LABEL = {
    "exception": "Exception",
    "condition": "Another case",
    "procedure": "Required by reference",
    "definition": "Definition",
    "closest": "Closest provision",
}
"""How the text of an answer introduces a statement of each role (a rule, a verdict or an open note:
no label)."""


def render(statements: Sequence[Statement]) -> str:
    """Statements as text, each introduced by its role's label and followed by its citation marks: ``[id]``,
    or ``[corpus id]`` when the statement names its corpus (an answer over several corpora)."""
    return "\n".join(
        (f"{ROLE_LABEL[s.role]}: " if s.role in ROLE_LABEL else "")
        + f"{s.text} "
        + "".join(f"[{s.corpus} {c}]" if s.corpus else f"[{c}]" for c in s.citations)
        for s in statements
    )
