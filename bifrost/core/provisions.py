"""Rules about provisions that every layer shares: which kinds are containers, ancestor walks,
and selecting the provisions under given subparts. One place per rule."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from bifrost.core.types import Provision, ProvisionKind

CONTAINER_KINDS = frozenset({ProvisionKind.PART, ProvisionKind.SUBPART})
"""Parts and subparts are traversed, never cited: they hold no text of their own."""


def is_container(provision: Provision | None) -> bool:
    """True for parts, subparts and unknown provisions (nothing to cite)."""
    return provision is None or provision.kind in CONTAINER_KINDS


def container_ids(provisions: Iterable[Provision]) -> set[str]:
    """Ids of the containers among ``provisions``."""
    return {p.id for p in provisions if p.kind in CONTAINER_KINDS}


def ancestors(pid: str, parent_of: Callable[[str], str | None], limit: int = 64) -> list[str]:
    """Ids above ``pid``, nearest first; stops at a cycle or after ``limit`` steps."""
    out: list[str] = []
    seen = {pid}
    cur = parent_of(pid)
    while cur is not None and cur not in seen and len(out) < limit:
        out.append(cur)
        seen.add(cur)
        cur = parent_of(cur)
    return out


def within_subparts(provisions: Sequence[Provision], subparts: Sequence[str]) -> list[Provision]:
    """The provisions under the given subparts (letters like "M" or ids like "1926 Subpart M")."""
    wanted = {s.split()[-1].upper() for s in subparts}
    parent = {p.id: p.parent_id for p in provisions}
    kind = {p.id: p.kind for p in provisions}

    def subpart_of(pid: str) -> str | None:
        chain = [pid, *ancestors(pid, parent.get)]
        found = next((c for c in chain if kind.get(c) == ProvisionKind.SUBPART), None)
        return found.split()[-1].upper() if found else None

    return [p for p in provisions if subpart_of(p.id) in wanted]


MAX_TEXT_CHARS = 1000  # longer texts are cut (an encoder reads ~256 word pieces anyway)
MIN_TEXT_CHARS = 8  # shorter texts say too little to train or score on


def own_text(p: Provision) -> str:
    """The provision as an encoder reads it: term, heading and text, cut at MAX_TEXT_CHARS."""
    return " ".join(x for x in (p.term or "", p.heading, p.text) if x).strip()[:MAX_TEXT_CHARS]
