"""Each cited rule's conditions against the question's facts: a quantity condition met, not met, or not stated
by the question (no figure of that kind); an exception is "not stated" unless the question's words take it up.
What the answer shows beside its citations, so that a compliance engineer sees what the verdict turns on."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bifrost.core.condition_check import check_condition
from bifrost.core.quantities import Quantity
from bifrost.core.requirement_types import Requirement
from bifrost.core.answer_types import ConditionCheck
from bifrost.graph_builders.requirements.question_figures import read_figures

Tokenize = Callable[[str], list[str]]


def check_exception(
    text: str, question_terms: set[str], tokenize: Tokenize | None, sentence: str = ""
) -> str:
    """An exception the question takes up (it shares a word that is the exception's own, not one of the rule
    it qualifies: "inspecting" in "..., except when the employee is inspecting the edge") is "stated";
    otherwise the question leaves it open ("not_stated")."""
    if tokenize is None:
        return "not_stated"
    own = set(tokenize(text)) - set(tokenize(sentence.replace(text, " ")))
    return "stated" if question_terms & own else "not_stated"


def applicability(
    question: str,
    cited: Sequence[str],
    reqs: Sequence[Requirement],
    tokenize: Tokenize | None = None,
    figures: Sequence[tuple[Quantity, str]] | None = None,
) -> list[ConditionCheck]:
    """The conditions and exceptions of the cited provisions' requirements, in citation order, each
    checked against the question's ``figures`` (each with what it measures; read from the question when
    not given)."""
    facts = read_figures(question) if figures is None else figures
    terms = set(tokenize(question)) if tokenize is not None else set()
    order = {pid: i for i, pid in enumerate(cited)}
    out: list[ConditionCheck] = []
    for r in sorted(
        (r for r in reqs if r.provision_id in order), key=lambda r: (order[r.provision_id], r.sentence)
    ):
        for c in r.conditions:
            status, fact = check_condition(c, facts)
            out.append(
                ConditionCheck(
                    provision_id=r.provision_id,
                    sentence=r.sentence,
                    kind="quantity",
                    text=c.text,
                    comparator=c.comparator,
                    measure=c.measure,
                    status=status,
                    fact=fact,
                )
            )
        for e in r.exceptions:
            out.append(
                ConditionCheck(
                    provision_id=r.provision_id,
                    sentence=r.sentence,
                    kind="exception",
                    text=e.text,
                    comparator="",
                    measure=e.cue,
                    status=check_exception(e.text, terms, tokenize, r.text),
                )
            )
    return out
