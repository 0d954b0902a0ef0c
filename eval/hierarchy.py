"""Hierarchy relations used for credit in metrics: CFR citations, or any corpus's parent links.

A relation is a pair of functions passed to the metrics: `related(a, b)` (a is an ancestor or
descendant of b) and `section_of(id)` (the section-level id), so ADGM can bring its own.
"""

from __future__ import annotations

from bifrost.core.provisions import ancestors

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from bifrost.core.errors import CitationError
from bifrost.core.types import Provision, ProvisionKind

Related = Callable[[str, str], bool]
SectionOf = Callable[[str], str]


@lru_cache(maxsize=100_000)
def _cfr(text: str):
    from bifrost.graph_builders.citations.cfr import CfrCitation

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


@dataclass(frozen=True)
class ParentMap:
    """Hierarchy from a corpus's own parent links (any jurisdiction, e.g. ADGM passage UUIDs)."""

    parent: dict[str, str | None]
    sections: frozenset[str]

    @classmethod
    def from_provisions(cls, provisions: Iterable[Provision]) -> ParentMap:
        ps = list(provisions)
        return cls({p.id: p.parent_id for p in ps}, frozenset(p.id for p in ps if p.kind == ProvisionKind.SECTION))

    def ancestors(self, pid: str) -> list[str]:
        return ancestors(pid, self.parent.get)

    def related(self, a: str, b: str) -> bool:
        return a != b and (a in self.ancestors(b) or b in self.ancestors(a))

    def section_of(self, pid: str) -> str:
        """The nearest section-kind ancestor (or self); else the top-most ancestor below the root."""
        if pid in self.sections:
            return pid
        chain = self.ancestors(pid)
        for a in chain:
            if a in self.sections:
                return a
        return chain[-2] if len(chain) >= 2 else (chain[-1] if chain else pid)


def hierarchy_for(jurisdiction: str | None, provisions: Iterable[Provision] = ()) -> tuple[Related, SectionOf]:
    """CFR grammar for US CFR corpora, else the corpus's parent links."""
    if jurisdiction in (None, "us-cfr"):
        return cfr_related, cfr_section_of
    pm = ParentMap.from_provisions(provisions)
    return pm.related, pm.section_of
