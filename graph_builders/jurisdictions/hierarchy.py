"""Ancestry from a corpus's own parent links: the hierarchy of any rulebook whose ids carry no structure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bifrost.core.provisions import ancestors
from bifrost.core.types import Provision, ProvisionKind


@dataclass(frozen=True)
class ParentMap:
    """Hierarchy from a corpus's own parent links (any jurisdiction, e.g. ADGM passage UUIDs)."""

    parent: dict[str, str | None]
    sections: frozenset[str]

    @classmethod
    def from_provisions(cls, provisions: Iterable[Provision]) -> ParentMap:
        ps = list(provisions)
        return cls(
            {p.id: p.parent_id for p in ps}, frozenset(p.id for p in ps if p.kind == ProvisionKind.SECTION)
        )

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
