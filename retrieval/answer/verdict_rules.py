"""The verdict of a yes/no question, read from the answer plan's rule sentences: the first sentence in plan
order that shares the question's terms and decides it, none when another sentence of the plan answers
otherwise or the sentence leaves a condition open (no verdict is better than a wrong one); and the "no" to a
claim over every case that a rule grants for some cases only (`scoped_elsewhere`)."""

from __future__ import annotations
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any
from bifrost.core.answer_types import Verdict
from bifrost.core.types import Provision
from bifrost.retrieval.answer.base import Planned, Role
from bifrost.core.sentences import sentences
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.retrieval.answer.deontic import (
    Asked,
    Decision,
    because,
    condition_met,
    decision,
    read_question,
    read_rule,
)
from bifrost.retrieval.answer.plan import as_written
from bifrost.graph_builders.requirements.read import read_sentence
from bifrost.retrieval.answer.applicability import check_exception
from bifrost.retrieval.answer.quantities import figures_fit, open_thresholds, quantities

Lookup = Callable[[str], Provision | None]


MIN_SHARED_TERMS = 3
"""A sentence decides a verdict only when it holds this many of the question's specific terms (all of them
when the question has fewer: a short question can get a verdict too)."""


SAID = ("yes", "no")  # "depends" only with VERDICTS=depends, naming the open conditions (`_depends`)
"""The verdicts an offline answer gives: "depends" was right on 1 of 19 labelled questions it was given for
(natural training set), so a rule that makes the answer depend on a condition gives no verdict instead."""


def decide(
    question: str,
    planned: Sequence[Planned],
    lookup: Lookup,
    asks: Sequence[frozenset[str]] = (),
    tokenize: Callable[[str], list[str]] | None = None,
    words: RulebookWords = GENERIC,
    verdicts: str = "rules",
    stance=None,
) -> Verdict | None:
    """The verdict of a yes/no question, or None: the first rule sentence in plan order sharing the question's
    terms and speaking to every figure the question gives (`figures_fit`), and none when that sentence makes
    the answer depend on a condition, or when another sentence of the plan on the question's terms answers
    otherwise (an exception, a "need not", a contrary duty: the question's facts do not decide between them,
    and no verdict is better than a wrong one). A question claiming every case ("all types of") is answered no
    by a rule that grants it for one case only (`scoped_elsewhere`). ``verdicts`` (the `RetrievalConfig`
    setting): "rules" all of these, "every" only the last, "off" none."""
    stance = stance if stance is not None else read_question(question)  # read once by the caller, when it can
    if not stance.is_yes_no or verdicts == "off":
        return None
    if stance.every and stance.asked is Asked.PERMISSION and tokenize is not None:
        if (found := scoped_elsewhere(planned, lookup, asks, tokenize, words, question)) is not None:
            return found
    if verdicts not in ("rules", "depends"):
        return None
    wanted = set().union(*asks) if asks else set()
    if tokenize is None or not wanted:
        return None  # nothing to check a sentence's relevance with (a past edition's answer): no verdict
    said = _relevant(question, stance, planned, lookup, wanted, tokenize, words)
    fitting = [r for r in said if figures_fit(question, r[1])]
    if not fitting:
        return None
    pid, sentence, rule, value = fitting[0]
    depends = lambda: _depends(question, pid, sentence, lookup) if verdicts == "depends" else None  # noqa: E731
    if value.value not in SAID:
        # the first relevant rule makes it depend on a condition: no later sentence overrules it
        return depends()
    if any(other[3] is not value for other in said if other[:2] != (pid, sentence)):
        # another sentence on the question's terms answers otherwise: the facts given do not decide
        return None
    if leaves_open(question, sentence):
        return depends()
    return Verdict(
        value=value.value,
        provision_id=pid,
        words=sentence,
        reason=f"{named(pid, lookup)} {because(stance, rule, value, sentence)}",
    )


def _depends(question: str, pid: str, sentence: str, lookup: Lookup) -> Verdict | None:
    """ "Depends", naming in the rule's own words what the question leaves open: its exceptions the question
    does not take up and its thresholds of a kind the question gives no figure for; None when none can be
    named."""
    req = read_sentence("", pid, 0, sentence)
    if req is None:
        return None
    asked = {q.dimension for q in quantities(question) if q.comparable}
    terms = set(_words(question))
    open_ = [
        e.text for e in req.exceptions if check_exception(e.text, terms, _words, sentence) == "not_stated"
    ]
    open_ += [
        c.text if c.comparator else "" for c in req.conditions if c.comparator and c.dimension not in asked
    ]
    open_ = [o for o in dict.fromkeys(open_) if o]
    if not open_:
        return None
    return Verdict(
        value="depends",
        provision_id=pid,
        words=sentence,
        reason=f"{'; '.join(open_)}: {named(pid, lookup)} turns on it",
    )


def leaves_open(question: str, sentence: str) -> bool:
    """True when the deciding sentence's own conditions are open: it introduces a list of them (it ends with a
    colon: "Under the following conditions, ... need not be grounded:"), it sets a threshold of a kind the
    question gives no figure for ("on roofs 50 feet or less in width"), or it states an exception the question
    does not take up ("except that receptacles on a ... generator rated not more than 5 kW need not be
    ...")."""
    if sentence.rstrip().endswith(":") or open_thresholds(question, sentence):
        return True
    req = read_sentence("", "", 0, sentence)
    if req is None or not req.exceptions:
        return False
    terms = set(_words(question))
    # "unless": the verdict line states it as its condition
    return any(
        check_exception(e.text, terms, _words, sentence) == "not_stated"
        for e in req.exceptions
        if e.cue != "unless"
    )


_STOP = frozenset(
    "when where that this with from such each which there their they them than then have been being "
    "shall must into only also what does used using".split()
)


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z][a-z-]{3,}", text.lower()) if w not in _STOP]


def _relevant(
    question: str,
    stance,
    planned: Sequence[Planned],
    lookup: Lookup,
    wanted: set[str],
    tokenize: Callable[[str], list[str]],
    words: RulebookWords,
) -> list[tuple[str, str, Any, Decision]]:
    """Every sentence of the plan's rules and exceptions that shares the question's terms and decides it one
    way, in plan order: (provision id, sentence, its reading, its decision)."""
    need = min(MIN_SHARED_TERMS, len(wanted))
    out = []
    for item in planned:
        if item.role not in (Role.RULE, Role.EXCEPTION):
            continue
        p = lookup(item.id)
        for sentence in sentences(p.text) if p is not None else ():
            if len(wanted & set(tokenize(sentence))) < need:
                continue  # a sentence about something else decides nothing about this question
            rule = read_rule(sentence, words)
            value = decision(stance, rule)
            if value is Decision.DEPENDS and condition_met(sentence, question, tokenize, words):
                # the question meets the rule's condition
                value = decision(stance, replace(rule, exception=False))
            if value is not None:
                out.append((item.id, sentence, rule, value))
    return out


def named(pid: str, lookup: Lookup) -> str:
    """A provision as a verdict line names it: its id, and its heading when it has one."""
    p = lookup(pid)
    heading = p.heading.strip().rstrip(".:").strip() if p is not None else ""
    return f"{pid} ({heading})" if heading else pid


def scoped_elsewhere(
    planned: Sequence[Planned],
    lookup: Lookup,
    asks: Sequence[frozenset[str]],
    tokenize: Callable[[str], list[str]],
    words: RulebookWords = GENERIC,
    question: str = "",
) -> Verdict | None:
    """A "no" to a claim over every case: a rule sentence of the plan that states a duty or permission for
    most of what the question asks (two asks or more) but not for one of its asks, which another provision of
    the plan governs ("warning line with fall arrest: roofing work on low-slope roofs"; leading edges are
    another provision's case). None when a sentence of the plan states a duty or permission for every ask
    together: the claim is then granted, whatever a narrower sentence says."""
    texts = {item.id: (p.text if (p := lookup(item.id)) is not None else "") for item in planned}
    terms = {pid: set(tokenize(t)) for pid, t in texts.items()}
    if any(
        all(a <= set(tokenize(s)) for a in asks)
        and ((r := read_rule(s, words)).obligation or r.permission)
        and not r.prohibition
        for t in texts.values()
        for s in sentences(t)
    ):
        return None  # a sentence of the plan grants the whole claim: no "no" from a narrower one
    for item in planned:
        if item.role is not Role.RULE:
            continue
        for sentence in sentences(texts[item.id]):
            rule = read_rule(sentence, words)
            if not (rule.obligation or rule.permission):
                continue
            said = set(tokenize(sentence))
            covered = [a for a in asks if a <= said]
            missing = [a for a in asks if not a <= said]
            elsewhere = [a for a in missing if any(a <= terms[o] for o in terms if o != item.id)]
            if len(covered) >= 2 and elsewhere:
                others = sorted([o for o in texts if o != item.id and elsewhere[0] <= terms[o]][:2])
                case = as_written(elsewhere[0], question or texts[others[0]], tokenize, reach=2)
                reason = (
                    f"{named(item.id, lookup)} provides for it, but {case} is covered by "
                    f"{' and '.join(others)}"
                )
                return Verdict(
                    value="no", provision_id=item.id, words=sentence, reason=reason, see_also=others
                )
    return None
