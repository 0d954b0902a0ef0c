"""Build the Document Navigator Graph: Section nodes, HAS edges from the numbering, and
REFERS_TO edges from the rule-based reference extractor.

Schema-locked: an edge is written only when both ends are provisions of the corpus; every
reference the grammar rejects or the corpus lacks is kept in the SQL store as dangling.

A build is a sync: references are extracted again for every current provision (about 5 s for
Part 1926), so a provision whose target was renumbered or repealed is re-resolved too, and
only the differences are written: retired sections and stale edges are deleted from the graph
store, retired references are closed in SQL. The result always equals a clean build.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence

from bifrost.core.graph.base import GraphStore
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edge, EdgeType, NavigatorReport, Provision, Reference, make_uid
from bifrost.graph_builders.navigator.base import IndexT, ReferenceExtractor
from bifrost.graph_builders.requirements.build import build_requirements

Progress = Callable[[int], None]


def has_edges(provisions: Sequence[Provision]) -> list[Edge]:
    """Parent -> child edges for every provision whose parent is in the corpus."""
    ids = {p.id for p in provisions}
    return [
        Edge(type=EdgeType.HAS, source=make_uid(p.corpus, p.parent_id), target=p.uid)
        for p in provisions
        if p.parent_id and p.parent_id in ids
    ]


def extract_references(
    provisions: Sequence[Provision], extractor: ReferenceExtractor[IndexT], progress: Progress | None = None
) -> list[Reference]:
    """Run the reference extractor over every provision against its index of the corpus."""
    known = extractor.index(provisions)
    refs: list[Reference] = []
    for i, p in enumerate(provisions):
        if p.text:
            refs.extend(extractor.extract(p, known))
        if progress and i % 500 == 0:
            progress(i)
    return refs


def refers_to_edges(refs: Sequence[Reference]) -> list[Edge]:
    """One REFERS_TO edge per (source, target), keeping the first raw text seen."""
    edges: dict[tuple[str, str], Edge] = {}
    for r in refs:
        if r.target_id is None or r.target_id == r.source_id:
            continue
        key = (r.source_id, r.target_id)
        if key not in edges:
            edges[key] = Edge(
                type=EdgeType.REFERS_TO,
                source=make_uid(r.corpus, r.source_id),
                target=make_uid(r.corpus, r.target_id),
                text=r.raw,
            )
    return list(edges.values())


def remove_stale(
    graph: GraphStore, corpus: str, sections: set[str], edges: Sequence[Edge]
) -> tuple[int, int]:
    """Delete Section nodes no longer in the corpus and HAS/REFERS_TO edges no longer derived."""
    stale_nodes = graph.node_uids(corpus, "Section") - sections
    removed_nodes = graph.delete_nodes(sorted(stale_nodes)) if stale_nodes else 0
    wanted = {(e.type, e.source, e.target) for e in edges}
    stale_edges = [
        e
        for t in (EdgeType.HAS, EdgeType.REFERS_TO)
        for e in graph.edges(corpus, t)
        if (e.type, e.source, e.target) not in wanted
    ]
    return removed_nodes, graph.delete_edges(stale_edges) if stale_edges else 0


def build_navigator(
    sql: SqlStore,
    graph: GraphStore,
    corpus: str,
    extractor: ReferenceExtractor[IndexT],
    progress: Progress | None = None,
) -> NavigatorReport:
    """Write the corpus's DNG to the graph store and its references to the SQL store."""
    start = time.perf_counter()
    provisions = sql.provisions(corpus)
    refs = extract_references(provisions, extractor, progress)
    refs_added, refs_retired = sql.replace_references(corpus, refs)
    hs = has_edges(provisions)
    rs = refers_to_edges(refs)
    dangling = [r for r in refs if r.target_id is None]
    with graph.atomic():  # readers see the previous graph or this one, never a mix
        sections_removed, edges_removed = remove_stale(graph, corpus, {p.uid for p in provisions}, hs + rs)
        graph.upsert_sections(provisions)
        graph.upsert_edges(hs + rs)
        graph.set_dangling_count(corpus, len(dangling))
    reasons = Counter((r.reason or "unknown").split(":")[0] for r in dangling)
    build_requirements(sql, corpus, provisions, graph)  # the rule sentences read, kept beside the graph
    return NavigatorReport(
        corpus=corpus,
        sections=len(provisions),
        sections_removed=sections_removed,
        edges_removed=edges_removed,
        references_added=refs_added,
        references_retired=refs_retired,
        has_edges=len(hs),
        refers_to_edges=len(rs),
        dangling=len(dangling),
        dangling_by_reason=dict(reasons.most_common()),
        seconds=round(time.perf_counter() - start, 3),
    )
