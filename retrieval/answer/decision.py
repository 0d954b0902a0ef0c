"""The decision step of `ask`, before anything is composed: from the question's facts, the ranked candidates
with their requirement records, the precedents' votes and the named provisions (all read by the selector's
columns, `governing.py`), the governing rule and how sure the selector is of it, each of its conditions and
exceptions checked against the facts (met, not met, not stated), the verdict a yes/no question gets (yes, no,
"depends on" the open condition in the rule's words, or none), what the answer cites (the governing rule, and
a second rule only when the selector is as sure of it) and the related provisions shown apart.

A rule is stated as the one that decides only when its calibrated probability clears the bar validation chose
(`DecisionCard.state_bar`); below it the decision hands over a shortlist instead: the provisions most likely
to decide, likeliest first, none stated (and no verdict).

No verdict is better than a wrong one: a verdict kind is given only past the margin cross-validation chose for
its precision, and "depends" only when the rule states a condition or exception the question leaves open."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from bifrost.core.answer_types import ConditionCheck, Verdict
from bifrost.core.types import Provision
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.graph_builders.requirements.read import force_of
from bifrost.retrieval.answer import governing
from bifrost.retrieval.answer.applicability import applicability
from bifrost.retrieval.answer.deontic import Decision, read_rule
from bifrost.retrieval.answer.decision_model import DecisionModel, calibrated
from bifrost.retrieval.answer.deontic import because
from bifrost.retrieval.answer.verdict_features import deciding_sentence, says, verdict_row
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.ranking.named_first import leading
from bifrost.retrieval.ranking.ltr.features import FEATURES as RANKER_FEATURES

Tokenize = Callable[[str], list[str]]
Lookup = Callable[[str], Provision | None]
T = TypeVar("T")
CITE_MOST = 3
"""Rules an answer cites at most: the governing one, and the others the selector is as sure of."""
RELATED_SHOWN = 5
SHORTLIST_MOST = 5
"""Provisions a shortlist holds at most."""


@dataclass(frozen=True)
class Governing:
    """A rule the answer rests on, and the probability the selector gives that it is one the answer needs."""

    id: str
    probability: float


@dataclass
class Decided:
    """What the decision step hands to composition."""

    governing: list[Governing]
    cited: list[str]
    related: list[str]
    verdict: Verdict | None = None
    checks: list[ConditionCheck] = field(default_factory=list)
    # no rule sure enough to state: the likeliest provisions (id, probability, deciding sentence), none stated
    shortlist: list[tuple[str, float, str]] = field(default_factory=list)

    @property
    def stated(self) -> bool:
        return not self.shortlist


@dataclass(frozen=True)
class Inputs:
    """What the decision reads of one question: ranked ids with the ranker's scores and feature rows, the
    question's facts, its specific asks, and how to read the corpus."""

    question: str
    ids: Sequence[str]
    scores: np.ndarray
    ranker_rows: np.ndarray
    facts: object  # `question_facts.QuestionFacts`
    asks: Sequence[frozenset[str]]
    nav: NavigatorIndex
    tokenize: Tokenize
    lookup: Lookup
    words: RulebookWords = GENERIC
    named: tuple[str, ...] = ()  # the provisions the question names that lead (`named_first.leading`)


def remembered(read: Callable[[str], T]) -> Callable[[str], T]:
    """``read`` (a tokenizer, a provision lookup) with each answer kept for the question being decided: a rule
    sentence is read by several columns, a candidate's text by several steps."""
    seen: dict[str, T] = {}

    def cached(key: str) -> T:
        if key not in seen:
            seen[key] = read(key)
        return seen[key]

    return cached


def inputs_of(
    question: str,
    result,
    facts,
    asks: Sequence[frozenset[str]],
    nav: NavigatorIndex,
    tokenize: Tokenize,
    lookup: Lookup,
    words: RulebookWords = GENERIC,
) -> Inputs | None:
    """What the decision reads of a learned ranker's result (None without its feature rows: another
    retriever, or nothing ranked); a named provision the ranker did not score reads as named."""
    if result.features is None or not result.items:
        return None
    ids = [it.id for it in result.items]
    return Inputs(
        question=question,
        ids=ids,
        scores=np.array([it.score for it in result.items], dtype=np.float64),
        ranker_rows=np.vstack([result.features.get(pid, governing.named_row()) for pid in ids]),
        facts=facts,
        asks=asks,
        nav=nav,
        tokenize=remembered(tokenize),
        lookup=remembered(lookup),
        words=words,
        named=tuple(leading(result, lookup)),
    )


def selector_rows(inp: Inputs) -> tuple[list[int], np.ndarray]:
    """The positions of the candidates weighed, and their selector rows."""
    at = governing.candidates_of(inp.ids, inp.nav)
    facts = inp.facts
    asked = governing.QuestionView(
        terms=frozenset(inp.tokenize(inp.question)),
        asks=tuple(inp.asks),
        figures=tuple(facts.figures),
        excluded=frozenset(inp.tokenize(" ".join(facts.excluded))),
        stance=facts.stance,
    )
    text = lambda pid: p.text if (p := inp.lookup(pid)) is not None else ""  # noqa: E731
    rows = governing.rows(
        [inp.ids[i] for i in at],
        inp.scores[at] if len(at) else np.zeros(0),
        inp.ranker_rows[at] if len(at) else np.zeros((0, len(RANKER_FEATURES))),
        inp.nav,
        asked,
        inp.tokenize,
        text,
    )
    return at, rows


def decide(inp: Inputs, model: DecisionModel) -> Decided | None:
    """The decision for one question (see the module docstring); None when no candidate has text."""
    at, rows = selector_rows(inp)
    if not at:
        return None
    ids = [inp.ids[i] for i in at]
    margins = model.margins(rows)
    p = calibrated(margins, model.card.calibration)
    order = named_first(governing_order(p, rows, model.card.order), ids, inp.named)
    gov = order[0]
    cited = [ids[gov]] + [ids[i] for i in order[1:CITE_MOST] if p[i] >= model.card.cite_also]
    text = lambda pid: p_.text if (p_ := inp.lookup(pid)) is not None else ""  # noqa: E731
    records = {pid: inp.nav.requirements.get(pid, ()) for pid in ids}
    sentences = [deciding_sentence(records[pid], inp.asks, inp.tokenize, text(pid)) for pid in ids]
    checks = applicability(
        inp.question, cited, [r for pid in cited for r in records[pid]], inp.tokenize, list(inp.facts.figures)
    )
    sure_first = model.governing_probability(float(margins[gov]))
    if not model.states(sure_first):
        short = shortlist_order(ids, p, order, gov, inp, model.card.state_bar or 0.0, rows)
        related = [pid for pid in inp.ids if pid not in set(short)][:RELATED_SHOWN]
        return Decided(
            governing=[],
            cited=[],
            related=related,
            shortlist=[
                (pid, sure_first if pid == ids[gov] else float(p[ids.index(pid)]), sentences[ids.index(pid)])
                for pid in short
            ],
        )
    verdict = None
    if inp.facts.stance.answerable_yes_no and model.verdicts:
        row = verdict_row(rows, p, order, sentences, inp.facts.stance, inp.question, inp.tokenize, inp.words)
        if (kind := model.verdict(row)) is not None:
            verdict = verdict_of(kind[0], ids[gov], sentences[gov], checks, inp)
    shown = [c for c in checks if bearing(c, verdict)]
    related = [pid for pid in inp.ids if pid not in cited][:RELATED_SHOWN]
    sure = [sure_first] + [float(p[ids.index(pid)]) for pid in cited[1:]]
    return Decided(
        governing=[Governing(pid, prob) for pid, prob in zip(cited, sure)],
        cited=cited,
        related=related,
        verdict=verdict,
        checks=shown,
    )


def named_first(order: list[int], ids: Sequence[str], named: Sequence[str]) -> list[int]:
    """The order with the provisions the question names first ("what does 1926.451(g)(1) say" is about
    (g)(1) whatever the selector prefers); whether one is stated still turns on its own probability."""
    asked = [i for i in order if ids[i] in set(named)]
    return asked + [i for i in order if i not in set(asked)]


def shortlist_order(
    ids: Sequence[str],
    p: np.ndarray,
    order: Sequence[int],
    gov: int,
    inp: Inputs,
    bar: float,
    rows: np.ndarray,
) -> list[str]:
    """The shortlist, likeliest first (the governing candidate, then by probability; a rule about an activity
    set aside last): the provisions the question names lead; then, when the likeliest section is sure enough
    (its paragraphs' probabilities add up to ``bar``), that section's paragraphs come before the others."""
    likeliest = [gov] + [i for i in order if i != gov]
    asked = [i for i in likeliest if ids[i] in set(inp.named)]
    section = inp.nav.section.get(ids[gov], ids[gov])
    in_section = [i for i in likeliest if inp.nav.section.get(ids[i], ids[i]) == section]
    first = in_section if sum(float(p[i]) for i in in_section) >= bar else []
    out = not_set_aside(list(dict.fromkeys([*first, *likeliest])), rows)
    return [ids[i] for i in list(dict.fromkeys([*asked, *out]))[:SHORTLIST_MOST]]


def ranked_order(p: np.ndarray, order: str) -> list[int]:
    """Candidate positions, governing first: by the selector's probability, or in the ranker's order."""
    if order == "ranker":
        return list(range(len(p)))
    return sorted(range(len(p)), key=lambda i: (-p[i], i))


def governing_order(p: np.ndarray, rows: np.ndarray, order: str) -> list[int]:
    """Candidate positions, governing first (`ranked_order`), a rule about an activity set aside last."""
    return not_set_aside(ranked_order(p, order), rows)


def not_set_aside(order: list[int], rows: np.ndarray) -> list[int]:
    """The order with the rules about an activity the question sets aside ("not erecting or dismantling") put
    last: such a rule never governs while another candidate is left."""
    aside = governing.FEATURES.index("set_aside")
    return [i for i in order if not rows[i, aside]] + [i for i in order if rows[i, aside]]


def bearing(check: ConditionCheck, verdict: Verdict | None) -> bool:
    """A condition the answer shows: one the question's facts decide (met, not met, an exception taken up), or
    one a "depends" verdict turns on."""
    if check.status != "not_stated":
        return True
    return verdict is not None and verdict.value == "depends" and check.text in verdict.reason


def verdict_of(
    kind: str, pid: str, sentence: str, checks: Sequence[ConditionCheck], inp: Inputs
) -> Verdict | None:
    """The verdict record: "yes"/"no" with the governing rule's words and the question's fact that decides it;
    "depends" naming the rule's open conditions in its own words (none to name: no verdict)."""
    p = inp.lookup(pid)
    if p is None or sentence not in p.text:
        return None
    name = named(p)
    mine = [c for c in checks if c.provision_id == pid]
    if kind == "depends":
        open_ = [c.text for c in mine if c.status == "not_stated"]
        open_ = [clause_of(sentence, t) for t in dict.fromkeys(open_)]
        if not open_:
            return None
        return Verdict(
            value="depends",
            provision_id=pid,
            words=sentence,
            reason=f"{'; '.join(open_)}: {name} turns on it",
        )
    stance = inp.facts.stance
    if stance.is_yes_no:
        value = says(stance, sentence, inp.question, inp.tokenize, inp.words)
        rule = read_rule(sentence, inp.words)
        verb = because(stance, rule, value if value is not None else Decision(kind), sentence)
    else:  # a polar question the deontic patterns do not read: what the rule's own force says
        verb = FORCE_VERB.get(force_of(sentence)[0] if force_of(sentence) else "", "says so")
    facts = [f"you said {c.fact}" for c in mine if c.fact and c.status in ("met", "not_met")]
    reason = f"{name} {verb}" + (f"; {facts[0]}" if facts else "")
    return Verdict(value=kind, provision_id=pid, words=sentence, reason=reason)


FORCE_VERB = {
    "must": "requires it",
    "required": "requires it",
    "must_not": "prohibits it",
    "may_not": "prohibits it",
    "may": "allows it",
    "need_not": "does not require it",
    "not_required": "does not require it",
    "does_not_apply": "does not apply to it",
}
"""How a verdict line says what a rule sentence's force does, for a polar question."""


def named(p: Provision) -> str:
    heading = p.heading.strip().rstrip(".:").strip()
    return f"{p.id} ({heading})" if heading else p.id


_BOUNDARY = re.compile(r"[,;:]|\.(?:\s|$)")
_COMPARATIVE = re.compile(
    r"\b(?:not (?:more|less) than|no (?:more|less) than|more than|less than|at least|at most|greater than|"
    r"in excess of|exceeding|over|under|above|below|up to|within)\s+\S*$",
    re.I,
)
_MODAL = re.compile(r"\b(?:shall|must|may|need not|is required|are required)\b", re.I)


def clause_of(sentence: str, condition: str, most: int = 120) -> str:
    """A condition in the rule's words: from its comparative ("more than", "at least"), else the last comma or
    the sentence's start, to the next comma or the rule's modal ("more than 10 feet (3.1 m) above a lower
    level" of "Each employee on a scaffold more than ... shall be protected"), cut at ``most`` characters; the
    condition itself when the sentence does not hold it. Parentheses are read through ("(3.1 m)")."""
    at = sentence.find(condition)
    if at < 0:
        return condition
    masked = re.sub(r"\([^()]*\)", lambda m: "x" * len(m.group(0)), sentence)
    before = [m.end() for m in _BOUNDARY.finditer(masked, 0, at)]
    start = before[-1] if before else 0
    if cue := _COMPARATIVE.search(
        masked, max(start, at - 40), at
    ):  # "more than 10 feet": from the comparative
        start = cue.start()
    after = at + len(condition)
    ends = [m.start() for m in (_BOUNDARY.search(masked, after), _MODAL.search(masked, after)) if m]
    end = min(ends) if ends else len(sentence)
    clause = " ".join(sentence[start:end].split())
    if len(clause) > most:
        clause = clause[:most].rsplit(" ", 1)[0] + " ..."
    return clause
