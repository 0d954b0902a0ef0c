"""The verdict an offline answer gives without the decision step's: the "no" to a claim over every case that
a rule of the plan grants for some cases only (`scoped_elsewhere`); the decision step (`decision.py`) gives
every other verdict. The sentence patterns that once gave yes/no/depends from the first deciding sentence
(`verdicts=rules|depends`) were measured right on about half the unseen questions they answered and removed
(docs/results.md, "Tried and not kept")."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bifrost.core.answer_types import Verdict
from bifrost.core.sentences import sentences
from bifrost.core.types import Provision
from bifrost.graph_builders.citations.words import GENERIC, RulebookWords
from bifrost.retrieval.answer.base import Planned, Role
from bifrost.retrieval.answer.deontic import Asked, read_question, read_rule
from bifrost.retrieval.answer.plan import as_written

Lookup = Callable[[str], Provision | None]


def decide(
    question: str,
    planned: Sequence[Planned],
    lookup: Lookup,
    asks: Sequence[frozenset[str]] = (),
    tokenize: Callable[[str], list[str]] | None = None,
    words: RulebookWords = GENERIC,
    verdicts: str = "every",
    stance=None,
) -> Verdict | None:
    """The "no" to a yes/no question claiming every case ("all types of") that a rule of the plan grants for
    one case only (`scoped_elsewhere`), else None; ``verdicts`` (the `RetrievalConfig` setting): "every", or
    "off" for none."""
    stance = stance if stance is not None else read_question(question)  # read once by the caller, when it can
    if not stance.is_yes_no or verdicts == "off" or tokenize is None:
        return None
    if stance.every and stance.asked is Asked.PERMISSION:
        return scoped_elsewhere(planned, lookup, asks, tokenize, words, question)
    return None


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
