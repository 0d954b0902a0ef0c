"""The CFR corpus index the reference extractor resolves against: ids, tree parents, siblings, parts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bifrost.core.errors import CitationError
from bifrost.core.types import Provision
from bifrost.graph_builders.jurisdictions.us_cfr.citation import CfrCitation


def citation_parent(pid: str) -> str | None:
    """The id of the citation parent (`1926.502(b)` of `1926.502(b)(3)`), None at the top or for a
    non-citation."""
    try:
        par = CfrCitation.parse(pid).parent()
    except CitationError:
        return None
    return str(par) if par is not None else None


@dataclass(frozen=True)
class KnownProvisions:
    """The CFR corpus index: ids, tree parents, citation siblings and parts.

    A :class:`~bifrost.graph_builders.navigator.base.ProvisionIndex` that also answers what the CFR
    extractor asks: a provision's parent ("this subpart"), its siblings (ranges), known parts.
    """

    ids: frozenset[str]
    parents: Mapping[str, str | None] = field(default_factory=dict)
    children: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    parts: frozenset[str] = frozenset()

    @classmethod
    def from_ids(cls, ids: Iterable[str], parents: Mapping[str, str | None] | None = None) -> KnownProvisions:
        """Index bare ids: parents are citation parents, unless `parents` tells the tree ones (section ->
        subpart)."""
        id_list = list(dict.fromkeys(ids))
        children: dict[str, list[str]] = {}
        parts: set[str] = set()
        for pid in id_list:
            try:
                cit = CfrCitation.parse(pid)
            except CitationError:
                continue
            parts.add(cit.part)
            par = cit.parent()
            if par is not None:
                children.setdefault(str(par), []).append(pid)
        return cls(
            ids=frozenset(id_list),
            parents=dict(parents or {}),
            children={k: tuple(v) for k, v in children.items()},
            parts=frozenset(parts),
        )

    @classmethod
    def from_provisions(cls, provisions: Iterable[Provision]) -> KnownProvisions:
        """Index provisions with their tree parents, so each section knows its subpart."""
        provs = list(provisions)
        return cls.from_ids((p.id for p in provs), {p.id: p.parent_id for p in provs})

    def __contains__(self, provision_id: object) -> bool:
        return provision_id in self.ids

    def parent_of(self, provision_id: str) -> str | None:
        if provision_id in self.parents:
            return self.parents[provision_id]
        par = citation_parent(provision_id)
        return par if par is not None and par in self.ids and "." in par else None

    def siblings_of(self, provision_id: str) -> Sequence[str]:
        par = citation_parent(provision_id)
        return self.children.get(par, ()) if par is not None else ()

    def has_part(self, part: str) -> bool:
        return part in self.parts
