"""Ancestry of CFR citations read from the ids themselves: `1926.451(b)(2)` is inside `1926.451(b)`."""

from __future__ import annotations

from functools import lru_cache

from bifrost.core.errors import CitationError
from bifrost.graph_builders.jurisdictions.us_cfr.citation import CfrCitation


@lru_cache(maxsize=100_000)
def _cfr(text: str) -> CfrCitation | None:
    try:
        return CfrCitation.parse(text)
    except CitationError:
        return None


def cfr_related(a: str, b: str) -> bool:
    """Whether CFR citation a is a strict ancestor or descendant of b (unparsable: False)."""
    ca, cb = _cfr(a), _cfr(b)
    if ca is None or cb is None or ca == cb:
        return False
    return ca.is_ancestor_of(cb) or cb.is_ancestor_of(ca)


def cfr_section_of(pid: str) -> str:
    """`1926.451(b)(2)` -> `1926.451`; ids above or outside sections are returned unchanged."""
    c = _cfr(pid)
    return (c.section_id or pid) if c is not None else pid
