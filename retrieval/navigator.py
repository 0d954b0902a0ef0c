"""The Document Navigator Graph of one corpus as compact in-memory maps (parent, children,
REFERS_TO out and in, enclosing section), read once from the SQL store so that graph features of
hundreds of candidates cost dictionary look-ups, whatever graph store is configured; and
`traverse`, the one walk from a seed through those maps (cross-references, parent, siblings,
children) that the learned ranker's candidate pool and edition retrieval share."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from bifrost.core.provisions import CONTAINER_KINDS, ancestors
from bifrost.core.answer_types import Via
from bifrost.core.requirement_types import Condition, Requirement
from bifrost.core.types import Provision, ProvisionKind, Reference


@dataclass
class NavigatorIndex:
    """Parent, children, cross-references and section of every provision of a corpus."""

    parent: dict[str, str | None]
    kind: dict[str, ProvisionKind]
    level: dict[str, int]
    text_len: dict[str, int]
    refs_out: dict[str, set[str]] = field(default_factory=dict)
    refs_in: dict[str, set[str]] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    section: dict[str, str] = field(default_factory=dict)
    # (source, target) -> the citation as printed
    ref_text: dict[tuple[str, str], str] = field(default_factory=dict)
    # the quantity conditions of each provision's requirement records (`graph_builders/requirements/`)
    conditions: dict[str, tuple[Condition, ...]] = field(default_factory=dict)
    # each provision's requirement records, in sentence order (what the decision step reads of a rule)
    requirements: dict[str, tuple[Requirement, ...]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        provisions: Iterable[Provision],
        references: Iterable[Reference],
        requirements: Iterable[Requirement] = (),
    ) -> NavigatorIndex:
        """The index of a corpus's provisions, references and (when built) requirement records."""
        ps = list(provisions)
        nav = cls(
            parent={p.id: p.parent_id for p in ps},
            kind={p.id: p.kind for p in ps},
            level={p.id: p.level for p in ps},
            text_len={p.id: len(p.text or "") for p in ps},
        )
        children: dict[str, list[str]] = defaultdict(list)
        for p in ps:
            if p.parent_id:
                children[p.parent_id].append(p.id)
        nav.children = dict(children)
        out: dict[str, set[str]] = defaultdict(set)
        into: dict[str, set[str]] = defaultdict(set)
        for r in references:
            if (
                r.target_id
                and r.target_id in nav.parent
                and r.source_id in nav.parent
                and r.target_id != r.source_id
            ):
                out[r.source_id].add(r.target_id)
                into[r.target_id].add(r.source_id)
                nav.ref_text.setdefault((r.source_id, r.target_id), r.raw)
        nav.refs_out, nav.refs_in = dict(out), dict(into)
        nav.section = {p.id: nav._section_of(p.id) for p in ps}
        conditions: dict[str, list[Condition]] = defaultdict(list)
        records: dict[str, list[Requirement]] = defaultdict(list)
        for r in requirements:
            if r.provision_id in nav.parent:
                conditions[r.provision_id] += r.conditions
                records[r.provision_id].append(r)
        nav.conditions = {pid: tuple(cs) for pid, cs in conditions.items() if cs}
        nav.requirements = {pid: tuple(sorted(rs, key=lambda r: r.sentence)) for pid, rs in records.items()}
        return nav

    def _section_of(self, pid: str) -> str:
        """The nearest section-kind provision at or above ``pid``; else its top-most non-container
        ancestor."""
        if self.kind.get(pid) == ProvisionKind.SECTION:
            return pid
        chain = ancestors(pid, self.parent.get)
        for a in chain:
            if self.kind.get(a) == ProvisionKind.SECTION:
                return a
        tops = [a for a in chain if self.kind.get(a) not in CONTAINER_KINDS]
        return tops[-1] if tops else pid

    def neighbours(self, pid: str) -> set[str]:
        """Cross-references both ways, parent and children: what the navigator graph joins to ``pid``."""
        out = set(self.refs_out.get(pid, ())) | self.refs_in.get(pid, set()) | set(self.children.get(pid, ()))
        parent = self.parent.get(pid)
        if parent:
            out.add(parent)
        out.discard(pid)
        return out

    def is_container(self, pid: str) -> bool:
        return self.kind.get(pid) in CONTAINER_KINDS or pid not in self.kind


@dataclass(frozen=True)
class Step:
    """One provision reached from a seed: how, after how many hops (REFERS_TO edges followed; 1 for a
    parent, sibling or child), by which path (seed first) and why (the reason shown with a result)."""

    id: str
    via: Via
    hops: int
    path: tuple[str, ...]
    why: str


def traverse(
    nav: NavigatorIndex,
    seed: str,
    *,
    depth: int = 1,
    referrers: bool = False,
    parents: bool = True,
    children: bool = True,
    max_children: int | None = None,
    siblings: int = 0,
) -> Iterator[Step]:
    """What the navigator graph joins to ``seed``, in this order:

    1. the provisions it cross-references, breadth first up to ``depth`` hops (each once, at its first
       shortest path; the targets of one provision in id order);
    2. with ``referrers``, the provisions cross-referencing it (one hop, id order);
    3. its parent (with ``parents``);
    4. up to ``siblings`` of its siblings, the nearest before and after it (document order);
    5. its children (with ``children``; document order, the first ``max_children`` when given).

    Containers are not skipped: the caller decides what it keeps.
    """
    frontier, seen = [(seed,)], {seed}
    for hop in range(1, depth + 1):
        nxt = []
        for path in frontier:
            for target in sorted(nav.refs_out.get(path[-1], ())):
                if target not in seen:
                    seen.add(target)
                    nxt.append((*path, target))
                    yield Step(
                        target, Via.REFERS_TO, hop, (*path, target), f"cross-reference from {path[-1]}"
                    )
        frontier = nxt
    if referrers:
        for source in sorted(nav.refs_in.get(seed, ())):
            yield Step(source, Via.REFERS_TO, 1, (seed, source), f"cross-reference to {seed}")
    parent = nav.parent.get(seed)
    if parent:
        if parents:
            yield Step(parent, Via.PARENT, 1, (seed, parent), f"parent of {seed}")
        kids = nav.children.get(parent, [])
        at = kids.index(seed) if seed in kids else 0
        half = siblings // 2
        for kid in kids[max(0, at - half) : at + half + 1] if siblings else ():
            if kid != seed:
                yield Step(kid, Via.SIBLING, 1, (seed, kid), f"sibling of {seed}")
    if children:
        for kid in nav.children.get(seed, [])[:max_children]:
            yield Step(kid, Via.CHILD, 1, (seed, kid), f"child of {seed}")
