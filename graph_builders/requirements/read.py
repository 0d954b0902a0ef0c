"""Read one rule sentence into a `Requirement`: its force (the modal), who it binds, its quantity conditions
(`bifrost.core.quantities`) and its exceptions. Patterns over the words any English rulebook uses; a sentence
with no modal it recognizes gives no record (never a guessed one)."""

from __future__ import annotations

import re

from bifrost.core.quantities import Quantity, quantities
from bifrost.core.requirement_types import Condition, ExceptionClause, Force, Requirement

_FORCE: list[tuple[re.Pattern[str], Force]] = [
    (re.compile(p, re.I), f)
    for p, f in (
        (r"\b(?:does|do|shall) not apply\b|\bnot applicable\b", "does_not_apply"),
        (r"\bneed not\b", "need_not"),
        (r"\b(?:is|are) not required\b", "not_required"),
        (r"\b(?:shall|must) not\b|\bno \w+(?: \w+){0,4} shall\b|\b(?:is|are) prohibited\b", "must_not"),
        (r"\bmay not\b", "may_not"),
        (r"\b(?:shall|must)\b", "must"),
        (r"\b(?:is|are) required\b", "required"),
        (r"\bmay\b", "may"),
    )
]
_ROLES = (
    "competent person",
    "qualified person",
    "authorised person",
    "authorized person",
    "registered professional engineer",
    "employer",
    "employees",
    "employee",
    "operator",
    "regulator",
    "insurer",
    "fund manager",
    "applicant",
    "signal person",
    "rigger",
    "supervisor",
    "physician",
    "manufacturer",
    "relevant person",
    "reporting entity",
)
_REFERENCE = (
    r"(?:\s|\u200e)*(?:Rules?|[Ss]ections?|[Pp]aragraphs?|[Ss]ubsections?|§|Chapters?|Articles?|Appendi(?:x|ces)|"
    r"APP\d|[A-Z]{2,6}\s+\d|\d+(?:\.\d+)+|\(\d+\))"
)
_EXCEPTIONS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(p, re.I), cue, kind)
    for p, cue, kind in (
        (
            r"\bexcept(?:\s+as)?(?:\s+otherwise)?\s+(?:provided|specified|required|set "
            r"out)\s+(?:in|by|under)\b",
            "except",
            "reference",
        ),
        (rf"\bsubject\s+to{_REFERENCE}", "subject to", "reference"),
        (r"\bunless\s+otherwise\s+(?:provided|specified)\s+(?:in|by|under)\b", "unless", "reference"),
        (r"^\s*exceptions?\s*:|\bexcept\b", "except", "inline"),
        (r"\bunless\b", "unless", "inline"),
        (r"(?:^|[,;(]\s*)other\s+than\b", "other than", "inline"),
        (r"\b(?:does|do|shall)\s+not\s+apply\b", "does not apply", "inline"),
        (r"\bneed\s+not\b", "need not", "inline"),
        (r"\b(?:is|are)\s+not\s+required\b", "not required", "inline"),
    )
]
_CLAUSE_END = re.compile(r"[;.]|,\s+(?:and|or|but)\b")
_MEASURES = (
    (re.compile(r"\b(?:high|height|above|tall|elevat\w*)\b", re.I), "height"),
    (re.compile(r"\b(?:deep|depth|below)\b", re.I), "depth"),
    (re.compile(r"\b(?:wide|width)\b", re.I), "width"),
    (re.compile(r"\b(?:long|length)\b", re.I), "length"),
    (re.compile(r"\b(?:from|away|within|closer|back|beyond|distance|apart)\b", re.I), "distance"),
)


def force_of(text: str) -> tuple[Force, int] | None:
    """The sentence's force and where its modal stands, or None when it has none this reader knows."""
    hits = [(m.start(), force) for pattern, force in _FORCE for m in [pattern.search(text)] if m]
    if not hits:
        return None
    start, force = min(hits, key=lambda h: (h[0], [f for _, f in _FORCE].index(h[1])))
    return force, start


def who_of(text: str, at: int) -> str:
    """Whom the sentence binds: a known role named before its modal, else the last words before it."""
    head = text[:at].lower()
    for role in _ROLES:
        if re.search(rf"\b{role}\b", head):
            return role
    words = re.findall(r"[A-Za-z][\w/-]*", text[:at])
    return " ".join(words[-3:]).lower()


def measure_of(text: str, start: int, end: int, dimension: str) -> str:
    """What a length measures, from the words right after (or before) the figure; else its dimension's
    name."""
    if dimension == "[length]":
        near = text[end : end + 40] + " " + text[max(0, start - 25) : start]
        for pattern, name in _MEASURES:
            if pattern.search(near):
                return name
        return "length"
    return {"[time]": "time", "[mass] * [length] ** 2 / [time] ** 3": "power", "": ""}.get(dimension, "")


def exceptions_of(text: str) -> list[ExceptionClause]:
    """Each exception cue of the sentence once, with the clause it opens (to the clause's end)."""
    out: list[ExceptionClause] = []
    taken: list[tuple[int, int]] = []
    for pattern, cue, kind in _EXCEPTIONS:
        for m in pattern.finditer(text):
            if any(a <= m.start() < b or m.start() <= a < m.end() for a, b in taken):
                continue
            end = _CLAUSE_END.search(text, m.end())
            clause = text[m.start() : end.start() if end else len(text)].strip(" ,(")
            out.append(ExceptionClause(cue=cue, kind=kind, text=clause, start=m.start()))
            taken.append((m.start(), m.end()))
    return sorted(out, key=lambda e: e.start)


def read_sentence(corpus: str, provision_id: str, index: int, text: str) -> Requirement | None:
    """The requirement a rule sentence states, or None when its force cannot be read."""
    found = force_of(text)
    if found is None:
        return None
    force, at = found
    conditions = tuple(
        Condition(
            text=q.text,
            comparator=q.comparator,
            value=q.value,
            unit=q.unit,
            magnitude=q.magnitude,
            dimension=q.dimension,
            measure=measure_of(text, q.start, q.end, q.dimension),
            start=q.start,
            end=q.end,
        )
        for q in quantities(text)
    )
    return Requirement(
        corpus=corpus,
        provision_id=provision_id,
        sentence=index,
        text=text,
        force=force,
        who=who_of(text, at),
        conditions=conditions,
        exceptions=tuple(exceptions_of(text)),
    )
