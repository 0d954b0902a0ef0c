"""The offline answer from an answer plan: a verdict first when the cited text decides a yes/no
question, then the statements grouped by role (rule, exception, condition, procedure, definition),
each a sentence of the regulation with its verified quote and citation; and, where the text leaves
part of the question open, a statement that says which part.

The verdict comes from `retrieval.deontic` over the sentences of the plan's rule provisions, best
ranked first; the first sentence that decides it is the one quoted (no verdict is better than a wrong
one: none when no sentence decides). Each provision is stated by its sentence that holds the fact
the question asks for, else its sentence closest to the question (`retrieval.answer_lead`).
"""

from __future__ import annotations


from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from bifrost.core.embeddings import Embedder
from bifrost.core.answer_types import Statement, Verdict
from bifrost.core.types import Provision
from bifrost.retrieval.answer.base import Candidate
from bifrost.retrieval.answer.lead_sentence import best_of, candidates, open_note
from bifrost.retrieval.answer.base import Planned, Role
from bifrost.retrieval.answerability.question_kinds import Asks, detect
from bifrost.core.sentences import sentences
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.retrieval.answer.base import DraftStatement, QuoteClaim
from bifrost.retrieval.answer.quotes import check_statements

from bifrost.retrieval.answer.verdict_rules import decide

Lookup = Callable[[str], Provision | None]
ROLE_ORDER = (Role.RULE, Role.EXCEPTION, Role.CONDITION, Role.PROCEDURE, Role.DEFINITION)


@dataclass(frozen=True)
class Composed:
    """The statements of an answer (verdict first when there is one) and the verdict."""

    statements: list[Statement]
    verdict: Verdict | None


def compose(
    question: str,
    planned: Sequence[Planned],
    lookup: Lookup,
    embedder: Embedder,
    with_verdict: bool = True,
    asks: Sequence[frozenset[str]] = (),
    tokenize: Callable[[str], list[str]] | None = None,
    words: RulebookWords = GENERIC,
    verdicts: str = "every",
    whole: Collection[str] = (),
    facts=None,
    decided: tuple[Verdict | None] | None = None,
) -> Composed:
    """Statements of the plan's provisions with text, by role, the verdict (when decided, see `decide` for
    ``verdicts``) first and a note on what is left open when the question asks for a kind of fact no cited
    sentence holds; a provision of ``whole`` is stated by every sentence (a question asking what it says);
    ``decided``: (the verdict,) the decision step chose, read instead of the sentence rules."""
    provisions = [(item, p) for item in planned if (p := lookup(item.id)) is not None and p.text.strip()]
    if not provisions:
        return Composed([], None)
    # the question's facts, read once at the start of `ask`
    ask = facts.ask if facts is not None else detect(question)
    qv = embedder.embed([question])[0]
    cands = candidates(qv, [p for _, p in provisions], sentences, embedder, ask)
    by_provision: dict[str, list[Candidate]] = {}
    for c in cands:
        by_provision.setdefault(c.provision.id, []).append(c)
    stance = facts.stance if facts is not None else None
    if decided is not None:  # the decision step chose the verdict (or none) before composition
        found = decided[0] if with_verdict else None
        if found is None and with_verdict and stance is not None and stance.every and verdicts != "off":
            # the "no" to a claim over every case that the plan's rules grant for one case only
            found = decide(question, planned, lookup, asks, tokenize, words, "every", stance)
    else:
        found = (
            decide(question, planned, lookup, asks, tokenize, words, verdicts, stance)
            if with_verdict
            else None
        )
    drafts, said = _verdict_drafts(found, by_provision)
    if ask.kind is not Asks.OTHER and not any(c.fact for c in cands) and found is None:
        lead = best_of(by_provision[provisions[0][1].id])
        drafts.append(
            DraftStatement(
                open_note(ask),
                (lead.provision.id,),
                (QuoteClaim(lead.provision.id, lead.sentence),),
                role="open",
            )
        )
    stated_by = _sentences_stated(provisions, by_provision, whole, asks, tokenize, said)
    drafts += _role_drafts(provisions, stated_by, said)
    return Composed(check_statements(drafts, lookup).statements, found)


def _verdict_drafts(
    found: Verdict | None, by_provision: dict[str, list[Candidate]]
) -> tuple[list[DraftStatement], set[str]]:
    """The verdict line, quoting the deciding sentence and the best sentence of each provision it points
    to, and the sentences so said; none without a verdict."""
    if found is None:
        return [], set()
    also = [(o, best_of(by_provision[o]).sentence) for o in found.see_also if o in by_provision]
    draft = DraftStatement(
        verdict_line(found),
        (found.provision_id, *(o for o, _ in also)),
        (QuoteClaim(found.provision_id, found.words), *(QuoteClaim(o, t) for o, t in also)),
        role="verdict",
    )
    return [draft], {found.words, *(t for _, t in also)}


def _sentences_stated(
    provisions: Sequence[tuple[Planned, Provision]],
    by_provision: dict[str, list[Candidate]],
    whole: Collection[str],
    asks: Sequence[frozenset[str]],
    tokenize: Callable[[str], list[str]] | None,
    said: set[str],
) -> dict[str, list[str]]:
    """Per provision, the sentences that state it: a definition its first, another its best, plus what it
    holds of the question that no other states (`held_elsewhere`); a provision of ``whole``, all."""
    chosen = {
        p.id: [
            opening(by_provision[p.id])
            if item.role is Role.DEFINITION
            else best_of(by_provision[p.id]).sentence
        ]
        for item, p in provisions
        if p.id in by_provision
    }
    for pid, extra in held_elsewhere(
        chosen, by_provision, [p.id for _, p in provisions], asks, tokenize, said
    ):
        chosen[pid].append(extra)
    for pid in whole:
        if pid in chosen:
            chosen[pid] = [c.sentence for c in by_provision[pid]]
    return chosen


def _role_drafts(
    provisions: Sequence[tuple[Planned, Provision]], chosen: dict[str, list[str]], said: set[str]
) -> list[DraftStatement]:
    """One statement per provision, grouped by role (rules first), its sentences in text order; a sentence
    already said (``said``, updated) is not said again."""
    drafts = []
    for role in ROLE_ORDER:
        for item, p in provisions:
            if item.role is not role or p.id not in chosen:
                continue
            stated = sorted((t for t in dict.fromkeys(chosen[p.id]) if t not in said), key=p.text.find)
            if not stated:
                continue
            said.update(stated)
            drafts.append(
                DraftStatement(
                    " ".join(stated), (p.id,), tuple(QuoteClaim(p.id, t) for t in stated), role=role.value
                )
            )
    return drafts


def opening(cands: Sequence[Candidate]) -> str:
    """A definition is stated by its first sentence, the one that says what the term means (its later
    sentences add rules about the thing: "As of January 1, 1998, the use of a body belt ... is
    prohibited")."""
    return cands[0].sentence


def held_elsewhere(
    chosen: dict[str, list[str]],
    by_provision: dict[str, list[Candidate]],
    order: Sequence[str],
    asks: Sequence[frozenset[str]],
    tokenize: Callable[[str], list[str]] | None,
    said: set[str],
) -> list[tuple[str, str]]:
    """More sentences of the cited provisions, (provision, sentence), for each ask of the question that no
    stated sentence holds and one of theirs does ("Inspections shall also be made after every rainstorm",
    after the provision's "Daily inspections ..."): every part of the question the cited text speaks to is
    quoted."""
    if tokenize is None or not asks:
        return []
    held = [set(tokenize(t)) for t in [*said, *(x for ts in chosen.values() for x in ts)]]
    out: list[tuple[str, str]] = []
    for ask in asks:
        if any(ask <= terms for terms in held):
            continue
        hit = next(
            (
                (pid, c.sentence)
                for pid in order
                if pid in chosen
                for c in by_provision[pid]
                if ask <= set(tokenize(c.sentence))
            ),
            None,
        )
        if hit is not None:
            out.append(hit)
            held.append(set(tokenize(hit[1])))
    return out


def verdict_line(verdict: Verdict) -> str:
    """The answer's first line: the verdict and, in one clause, why (the deciding sentence is its quote); a
    "depends" names what it depends on first ("Depends on <the rule's open condition>: ...")."""
    if verdict.value == "depends" and verdict.reason:
        return f"Depends on {verdict.reason}."
    return f"{verdict.value.capitalize()}: {verdict.reason or verdict.words}" + (
        "." if verdict.reason else ""
    )
