"""The navigator subgraph around one provision: breadth-first along HAS (parent and children)
and REFERS_TO (out and in) edges up to a depth, through the `GraphStore` protocol so every
store gives the same answer."""

from __future__ import annotations

from collections.abc import Iterable

from bifrost.core.errors import NotFoundError
from bifrost.core.graph.base import GraphStore
from bifrost.core.types import EdgeType, NavigatorSubgraph, SubgraphEdge, SubgraphNode, make_uid, split_uid


def _steps(
    store: GraphStore, uid: str, kinds: Iterable[EdgeType]
) -> list[tuple[str, tuple[str, str, EdgeType, str | None]]]:
    """(neighbour uid, (source uid, target uid, type, text)) of every edge of ``uid`` of the given kinds."""
    out = []
    for kind in kinds:
        if kind is EdgeType.HAS:
            if (parent := store.parent(uid)) is not None:
                out.append((parent, (parent, uid, kind, None)))
            out += [(child, (uid, child, kind, None)) for child in store.children(uid)]
        elif kind is EdgeType.REFERS_TO:
            out += [(t, (uid, t, kind, text)) for t, text in store.references_out(uid)]
            out += [(s, (s, uid, kind, text)) for s, text in store.references_in(uid)]
    return out


def navigator_subgraph(
    store: GraphStore, corpus: str, provision_id: str, depth: int, kinds: Iterable[EdgeType], limit: int = 200
) -> NavigatorSubgraph:
    """Nodes within ``depth`` edges of the provision and the edges walked to reach them; at most
    ``limit`` nodes (then ``truncated``)."""
    kinds = tuple(dict.fromkeys(kinds))
    root = make_uid(corpus, provision_id)
    first = store.get_section(root)
    if first is None:
        raise NotFoundError(f"provision {provision_id!r} is not in corpus {corpus!r}")
    seen: dict[str, int] = {root: 0}
    nodes = [SubgraphNode(id=first.id, kind=first.kind, heading=first.heading, depth=0)]
    edges: dict[tuple[str, str, EdgeType], SubgraphEdge] = {}
    frontier, truncated = [root], False
    for level in range(1, depth + 1):
        nxt: list[str] = []
        for uid in frontier:
            for other, (s, t, kind, text) in _steps(store, uid, kinds):
                if other not in seen:
                    p = store.get_section(other)
                    if p is None:
                        continue
                    if len(nodes) >= limit:
                        truncated = True
                        continue
                    seen[other] = level
                    nodes.append(SubgraphNode(id=p.id, kind=p.kind, heading=p.heading, depth=level))
                    nxt.append(other)
                key = (s, t, kind)
                if key not in edges:
                    edges[key] = SubgraphEdge(
                        type=kind, source=split_uid(s)[1], target=split_uid(t)[1], text=text
                    )
        frontier = nxt
    return NavigatorSubgraph(
        corpus=corpus,
        root=first.id,
        depth=depth,
        kinds=kinds,
        nodes=tuple(nodes),
        edges=tuple(edges.values()),
        truncated=truncated,
    )
