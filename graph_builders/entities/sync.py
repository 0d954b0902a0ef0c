"""Make the stored entity network equal a freshly refined one, writing only the differences.

The SQL tables (entities, relation types, triples and their vectors) and the graph store (Entity
nodes, MENTIONED_IN and RELATES edges) are compared with the wanted network: rows and nodes that
are no longer wanted are deleted, new or changed ones are written, the rest is left alone. The
graph store is compared with its own inventory (`GraphStore.node_uids`, `GraphStore.edges`), so a
store left stale by an older build or by a run killed halfway is repaired by the next run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from bifrost.core.graph.base import GraphStore
from bifrost.core.relations import is_valid_relation
from bifrost.core.store import entity_tables as et
from bifrost.core.types import Edge, EdgeType, Entity, Triple, entity_uid, make_uid
from bifrost.graph_builders.entities.base import EntitySyncReport

ENTITY_LABEL = "Entity"


@dataclass
class PruneResult:
    """What `prune_graph` deleted and what the store holds afterwards."""

    nodes_deleted: int = 0
    edges_deleted: int = 0
    nodes: set[str] = field(default_factory=set)
    edges: dict[tuple, Edge] = field(default_factory=dict)  # kept edges by (type, source, target, relation)
    # entity uid -> section uids
    mentions: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))


@dataclass(frozen=True)
class WantedNetwork:
    """The entity network a build wants stored, with its vectors (row i for item i)."""

    corpus: str
    entities: list[Entity]
    entity_matrix: np.ndarray
    relations: list[str]
    relation_matrix: np.ndarray
    triples: list[Triple]
    triple_matrix: np.ndarray


def _edge_key(e: Edge) -> tuple:
    return e.type, e.source, e.target, e.relation


def graph_edges(corpus: str, entities: Sequence[Entity], triples: Sequence[Triple]) -> list[Edge]:
    """MENTIONED_IN edges entity -> section and RELATES edges head -> tail (triples whose relation is
    not a valid snake_case name stay in SQL only: no store may write them)."""
    edge = Edge.model_construct  # fields built here are valid by construction; ~100k edges on Part 1926
    edges = [
        edge(
            type=EdgeType.MENTIONED_IN,
            source=e.uid,
            target=make_uid(corpus, sid),
            text=None,
            relation=None,
            section_ids=(),
        )
        for e in entities
        for sid in e.section_ids
    ]
    edges += [
        edge(
            type=EdgeType.RELATES,
            source=entity_uid(corpus, t.head),
            target=entity_uid(corpus, t.tail),
            text=None,
            relation=t.relation,
            section_ids=tuple(t.section_ids),
        )
        for t in triples
        if is_valid_relation(t.relation)
    ]
    return edges


def stored_entities(session: Session, corpus: str) -> dict[str, tuple[Entity, bytes]]:
    """The stored entities of a corpus with their vector bytes, by name."""
    m = et.EntityEmbeddingRow
    rows = session.execute(select(m.name, m.label, m.section_ids, m.vector).where(m.corpus == corpus))
    return {
        n: (Entity(corpus=corpus, name=n, label=lab or "", section_ids=tuple(s or ())), v)
        for n, lab, s, v in rows
    }


def sync_sql(
    session: Session,
    want: WantedNetwork,
    report: EntitySyncReport,
    old: dict[str, tuple[Entity, bytes]] | None = None,
) -> None:
    """Delete unwanted rows and write new or changed ones (inside the caller's transaction);
    ``old`` is `stored_entities` when the caller has read it already."""
    old = stored_entities(session, want.corpus) if old is None else old
    write = _sync_entities(session, want, report, old)
    rel_write = _sync_relations(session, want)
    # entities whose vector changed
    moved = {
        want.entities[i].name
        for i in write
        if want.entities[i].name in old and old[want.entities[i].name][1] != et.to_blob(want.entity_matrix[i])
    }
    moved |= {want.relations[i] for i in rel_write}
    _sync_triples(session, want, report, moved)


def _sync_entities(
    session: Session, want: WantedNetwork, report: EntitySyncReport, old: dict[str, tuple[Entity, bytes]]
) -> list[int]:
    """Entity rows: the unwanted deleted, the new or changed written; the indexes written."""
    c = want.corpus
    names = {e.name for e in want.entities}
    gone = [n for n in old if n not in names]
    et.delete_entities(session, c, gone)
    write = [
        i
        for i, e in enumerate(want.entities)
        if e.name not in old or old[e.name][0] != e or old[e.name][1] != et.to_blob(want.entity_matrix[i])
    ]
    if write:
        et.upsert_entities(session, c, [want.entities[i] for i in write], want.entity_matrix[write])
    report.entities_removed = len(gone)
    report.entities_added = sum(1 for i in write if want.entities[i].name not in old)
    report.entities_changed = len(write) - report.entities_added
    return write


def _sync_relations(session: Session, want: WantedNetwork) -> list[int]:
    """Relation rows: the unwanted deleted, those whose vector changed written; the indexes written."""
    c = want.corpus
    wanted_rels = set(want.relations)
    old_rels = dict(
        session.execute(
            select(et.RelationEmbeddingRow.name, et.RelationEmbeddingRow.vector).where(
                et.RelationEmbeddingRow.corpus == c
            )
        ).all()
    )
    et.delete_relations(session, c, [r for r in old_rels if r not in wanted_rels])
    rel_write = [
        i for i, r in enumerate(want.relations) if old_rels.get(r) != et.to_blob(want.relation_matrix[i])
    ]
    if rel_write:
        et.upsert_relations(
            session, c, [want.relations[i] for i in rel_write], want.relation_matrix[rel_write]
        )
    return rel_write


def _sync_triples(session: Session, want: WantedNetwork, report: EntitySyncReport, moved: set[str]) -> None:
    """Triple rows: the unwanted deleted; new ones, those whose sections changed and those naming an entity
    or relation whose vector ``moved`` written."""
    c = want.corpus
    t = et.TripleEmbeddingRow
    old_tri = {
        (h, r, tl): tuple(s or ())
        for h, r, tl, s in session.execute(
            select(t.head, t.relation, t.tail, t.section_ids).where(t.corpus == c)
        )
    }
    keys = {(x.head, x.relation, x.tail) for x in want.triples}
    tri_gone = [k for k in old_tri if k not in keys]
    et.delete_triples(session, c, tri_gone)
    tri_write = [
        i
        for i, x in enumerate(want.triples)
        if old_tri.get((x.head, x.relation, x.tail)) != x.section_ids or {x.head, x.relation, x.tail} & moved
    ]
    if tri_write:
        et.upsert_triples(session, c, [want.triples[i] for i in tri_write], want.triple_matrix[tri_write])
    report.triples_removed = len(tri_gone)
    report.triples_added = sum(
        1
        for i in tri_write
        if (want.triples[i].head, want.triples[i].relation, want.triples[i].tail) not in old_tri
    )
    report.triples_changed = len(tri_write) - report.triples_added


def prune_graph(
    graph: GraphStore, corpus: str, wanted_uids: set[str], wanted_edges: Sequence[Edge]
) -> PruneResult:
    """Delete a corpus's Entity nodes not in ``wanted_uids`` and MENTIONED_IN/RELATES edges not in
    ``wanted_edges`` (by type, ends and relation); returns what the store holds afterwards."""
    gone = sorted(graph.node_uids(corpus, ENTITY_LABEL) - wanted_uids)
    result = PruneResult(nodes_deleted=graph.delete_nodes(gone) if gone else 0)
    result.nodes = graph.node_uids(corpus, ENTITY_LABEL)
    keys = {_edge_key(e) for e in wanted_edges}
    stale: list[Edge] = []
    for etype in (EdgeType.MENTIONED_IN, EdgeType.RELATES):
        for e in graph.edges(corpus, etype):
            if _edge_key(e) in keys:
                result.edges[_edge_key(e)] = e
                if etype is EdgeType.MENTIONED_IN:
                    result.mentions[e.source].add(e.target)
            else:
                stale.append(e)
    result.edges_deleted = graph.delete_edges(stale) if stale else 0
    return result


def sync_graph(
    graph: GraphStore, want: WantedNetwork, previous: dict[str, Entity], report: EntitySyncReport
) -> None:
    """Make the store's Entity nodes, MENTIONED_IN and RELATES edges of a corpus equal the wanted ones.

    ``previous`` (the entities stored in SQL before this build) tells which nodes changed; a node
    is also rewritten when it is missing or its MENTIONED_IN edges differ from its section ids."""
    c = want.corpus
    want_edges = {_edge_key(e): e for e in graph_edges(c, want.entities, want.triples)}
    with graph.atomic():  # nodes and edges switch in one step; readers never see half a network
        have = prune_graph(graph, c, {e.uid for e in want.entities}, list(want_edges.values()))
        report.graph_nodes_deleted, report.graph_edges_deleted = have.nodes_deleted, have.edges_deleted
        have_nodes, have_edges, mentions = have.nodes, have.edges, have.mentions
        write = [
            e
            for e in want.entities
            if e.uid not in have_nodes
            or previous.get(e.name) != e
            or mentions.get(e.uid, set()) != {make_uid(c, s) for s in e.section_ids}
        ]
        if write:
            graph.upsert_entities(write)
        new_edges = [e for k, e in want_edges.items() if have_edges.get(k) != e]
        if new_edges:
            graph.upsert_edges(new_edges)
    # Vectors follow outside the transaction (a full build's would make it hundreds of MB);
    # a kill here leaves nodes without vectors, which the next build writes.
    rows = {e.uid: i for i, e in enumerate(want.entities)}
    if write:
        graph.set_entity_embeddings([(e.uid, want.entity_matrix[rows[e.uid]]) for e in write])
    if new_edges:
        tri_row = {
            (entity_uid(c, x.head), x.relation, entity_uid(c, x.tail)): i for i, x in enumerate(want.triples)
        }
        graph.set_triple_embeddings(
            [
                (e, want.triple_matrix[tri_row[(e.source, e.relation, e.target)]])
                for e in new_edges
                if e.type is EdgeType.RELATES
            ]
        )
    report.graph_nodes_written = len(write)
    report.graph_edges_written = len(new_edges)
