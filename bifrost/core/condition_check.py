"""A rule's quantity condition against the figures a question gives: met, not met, or not stated (no figure
of that kind). Used to show what a cited rule turns on, and as the ranker's applicability features."""

from __future__ import annotations

from collections.abc import Sequence

from bifrost.core.quantities import Quantity
from bifrost.core.requirement_types import Condition


def as_quantity(c: Condition) -> Quantity:
    return Quantity(
        text=c.text,
        value=c.value,
        unit=c.unit,
        magnitude=c.magnitude,
        dimension=c.dimension,
        comparator=c.comparator,
    )


def check_condition(c: Condition, facts: Sequence[tuple[Quantity, str]]) -> tuple[str, str]:
    """(status, the question's figure as written) of one quantity condition: compared only with a figure of
    the same kind, and for lengths only one that measures the same thing (a height is never checked against a
    gap)."""
    same_kind = [
        f
        for f, measure in facts
        if f.comparable and f.dimension == c.dimension and (c.dimension != "[length]" or measure == c.measure)
    ]
    if not same_kind or c.magnitude is None or not c.comparator:
        return "not_stated", ""
    rule = as_quantity(c)
    for f in same_kind:
        if rule.meets(f):
            return "met", f.text
    return "not_met", same_kind[0].text
