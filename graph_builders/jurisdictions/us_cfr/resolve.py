"""Resolving a cited CFR id against the corpus index: a hit on an existing provision, or dangling with why.

Ranges expand over the siblings the corpus holds; a provision's subpart and ancestors come from its
tree parents (the citation alone does not name a section's subpart).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bifrost.core.errors import CitationError
from bifrost.core.provisions import ancestors
from bifrost.core.types import Provision
from bifrost.graph_builders.jurisdictions.us_cfr.citation import CfrCitation, expand_range
from bifrost.graph_builders.jurisdictions.us_cfr.index import KnownProvisions, citation_parent


@dataclass(frozen=True)
class Hit:
    """One resolved (or dangling) reference before it becomes a `Reference`."""

    raw: str
    target: str | None
    reason: str | None = None


def lookup(cit: CfrCitation, raw: str, known: KnownProvisions) -> Hit:
    """A hit on an existing id, or a dangling one saying why (other part, or no such provision)."""
    cid = str(cit)
    if cid in known:
        return Hit(raw, cid)
    if not known.has_part(cit.part):
        return Hit(raw, None, f"not in corpus: {cid}")
    return Hit(raw, None, f"no such provision: {cid}")


def lookup_range(start: CfrCitation, end: CfrCitation, raw: str, known: KnownProvisions) -> Iterator[Hit]:
    """Expand 'start through end' over existing siblings; missing ends are reported dangling.

    An end deeper than the start ('§§ 1926.403 through 1926.408(b)') covers the siblings before
    the end's ancestor at the start's level, then the end itself.
    """
    if end.level > start.level and end.suffix is None:
        anchor = next((a for a in end.ancestors() if a.level == start.level), None)
        if anchor is not None and anchor.parent() == start.parent() and start < anchor:
            for hit in lookup_range(start, anchor, raw, known):
                if hit.target != str(anchor) and hit.reason != f"no such provision: {anchor}":
                    yield hit
            yield lookup(end, raw, known)
            return
    try:
        members = expand_range(start, end, known.siblings_of(str(start)) or known.siblings_of(str(end)))
    except CitationError as e:
        yield lookup(start, raw, known)
        yield lookup(end, raw, known)
        yield Hit(raw, None, f"bad range: {e.reason}")
        return
    for ends in (start, end):
        if str(ends) not in known:
            yield lookup(ends, raw, known)
    for cit in members:
        yield Hit(raw, str(cit))


def find_subpart(provision: Provision, cit: CfrCitation | None, known: KnownProvisions) -> str | None:
    """The subpart id a provision sits in, walking tree parents (provision, then corpus index)."""
    if cit is not None and cit.subpart is not None:
        return str(CfrCitation(cit.part, subpart=cit.subpart))
    cur: str | None = provision.id
    for _ in range(16):
        if cur is None:
            return None
        try:
            c = CfrCitation.parse(cur)
        except CitationError:
            c = None
        if c is not None and c.kind == "subpart":
            return cur
        nxt = provision.parent_id if cur == provision.id else None
        nxt = nxt or known.parent_of(cur)
        if nxt is None and c is not None and c.section is not None and c.kind != "section":
            nxt = str(CfrCitation(c.part, c.section))
        cur = nxt
    return None


def tree_ancestors(provision: Provision, known: KnownProvisions) -> set[str]:
    """Ids above the provision, by its own parent, then the index, then the citation."""

    def parent_of(pid: str) -> str | None:
        if pid == provision.id and provision.parent_id:
            return provision.parent_id
        return known.parent_of(pid) or citation_parent(pid)

    return set(ancestors(provision.id, parent_of, limit=16))
