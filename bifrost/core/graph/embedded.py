"""The embedded GraphStore: an in-process networkx graph persisted through the SQL store.

The default store: no server needed. Every write goes to the SQL tables ``graph_nodes`` and
``graph_edges`` in one transaction and to the in-memory graph, which is loaded lazily on
first use, so a new process sees what an earlier one built.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import networkx as nx
from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from bifrost.core.requirement_types import STATES, Requirement
from bifrost.core.store.requirement_tables import requirement_provisions
from bifrost.core.store.sql_models import GraphEdgeRow, GraphNodeRow, MetaRow
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edge, EdgeType, Entity, GraphStats, Provision, Reached, make_uid, split_uid

SECTION, ENTITY = "Section", "Entity"
_CHUNK = 500


def _edge_key(edge: Edge) -> str:
    return edge.relation or ""


def _edge_props(edge: Edge) -> dict:
    props: dict = {}
    if edge.text is not None:
        props["text"] = edge.text
    if edge.relation is not None:
        props["relation"] = edge.relation
    if edge.section_ids:
        props["section_ids"] = list(edge.section_ids)
    return props


class EmbeddedGraphStore:
    """GraphStore on networkx + SQL; see `bifrost.core.graph.base.GraphStore` for the contract."""

    def __init__(self, sql: SqlStore) -> None:
        self.sql = sql
        self._graph: nx.MultiDiGraph | None = None
        self._open: Session | None = None  # the transaction of an atomic() block

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One SQL transaction for every write in the block; on failure the in-memory graph is reloaded."""
        if self._open is not None:  # nested: part of the outer block
            yield
            return
        try:
            with self.sql.session() as s:
                self._open = s
                yield
        except BaseException:
            self._graph = None  # it holds writes that were rolled back: load again from SQL
            raise
        finally:
            self._open = None

    @contextmanager
    def _session(self) -> Iterator[Session]:
        """The atomic block's transaction, else a transaction of its own."""
        if self._open is not None:
            yield self._open
        else:
            with self.sql.session() as s:
                yield s

    # --- loading ---
    @property
    def graph(self) -> nx.MultiDiGraph:
        """The in-memory graph, loaded from SQL on first use."""
        if self._graph is None:
            g = nx.MultiDiGraph()
            with self.sql.session() as s:
                for uid, label, props in s.execute(
                    select(GraphNodeRow.uid, GraphNodeRow.label, GraphNodeRow.props)
                ):
                    g.add_node(uid, label=label, **props)
                for t, src, dst, key, props in s.execute(
                    select(
                        GraphEdgeRow.type,
                        GraphEdgeRow.source,
                        GraphEdgeRow.target,
                        GraphEdgeRow.key,
                        GraphEdgeRow.props,
                    )
                ):
                    g.add_edge(src, dst, key=f"{t}:{key}", type=t, **props)
            self._graph = g
        return self._graph

    # --- writes ---
    def _upsert_nodes(self, rows: list[tuple[str, str, str, dict]]) -> int:
        g = self.graph
        changed = [r for r in rows if r[0] not in g or g.nodes[r[0]] != {"label": r[2], **r[3]}]
        if not changed:
            return len(rows)
        with self._session() as s:
            uids = [r[0] for r in changed]
            for i in range(0, len(uids), _CHUNK):
                s.execute(delete(GraphNodeRow).where(GraphNodeRow.uid.in_(uids[i : i + _CHUNK])))
            payload = [{"uid": u, "corpus": c, "label": lab, "props": p} for u, c, lab, p in changed]
            for i in range(0, len(payload), 2000):
                s.execute(insert(GraphNodeRow), payload[i : i + 2000])
        for uid, _corpus, label, props in changed:
            if uid in g:
                g.nodes[uid].clear()
            g.add_node(uid, label=label, **props)
        return len(rows)

    def upsert_sections(self, provisions: Sequence[Provision]) -> int:
        rows = []
        for p in provisions:
            props = p.model_dump(mode="json", exclude={"uid"})
            rows.append((p.uid, p.corpus, SECTION, props))
        return self._upsert_nodes(rows)

    def upsert_entities(self, entities: Sequence[Entity]) -> int:
        rows = [
            (
                e.uid,
                e.corpus,
                ENTITY,
                {
                    "corpus": e.corpus,
                    "name": e.name,
                    "entity_label": e.label,
                    "section_ids": list(e.section_ids),
                },
            )
            for e in entities
        ]
        return self._upsert_nodes(rows)

    def upsert_edges(self, edges: Sequence[Edge]) -> int:
        g = self.graph
        new, changed = [], []
        for e in edges:
            if e.source not in g or e.target not in g:
                continue
            key = f"{e.type.value}:{_edge_key(e)}"
            props = _edge_props(e)
            if g.has_edge(e.source, e.target, key):
                current = {k: v for k, v in g.edges[e.source, e.target, key].items() if k != "type"}
                if current != props:
                    changed.append((e, props))
            else:
                new.append((e, props))
        if not new and not changed:
            return 0
        with self._session() as s:
            payload = [
                {
                    "corpus": split_uid(e.source)[0],
                    "type": e.type.value,
                    "source": e.source,
                    "target": e.target,
                    "key": _edge_key(e),
                    "props": props,
                }
                for e, props in new
            ]
            for i in range(0, len(payload), 2000):
                s.execute(insert(GraphEdgeRow), payload[i : i + 2000])
            for e, props in changed:
                s.execute(
                    update(GraphEdgeRow)
                    .where(
                        GraphEdgeRow.type == e.type.value,
                        GraphEdgeRow.source == e.source,
                        GraphEdgeRow.target == e.target,
                        GraphEdgeRow.key == _edge_key(e),
                    )
                    .values(props=props)
                )
        for e, props in new + changed:
            g.add_edge(e.source, e.target, key=f"{e.type.value}:{_edge_key(e)}", type=e.type.value, **props)
        return len(new) + len(changed)

    def set_dangling_count(self, corpus: str, count: int) -> None:
        with self._session() as s:
            s.merge(MetaRow(corpus=corpus, key="dangling_references", value={"count": count}))

    def set_entity_embeddings(self, rows: Sequence[tuple[str, Sequence[float]]]) -> int:
        """The embedded store reads vectors from the SQL entity tables; this counts the nodes matched."""
        return sum(1 for uid, _ in rows if uid in self.graph)

    def set_triple_embeddings(self, rows: Sequence[tuple[Edge, Sequence[float]]]) -> int:
        """The embedded store reads vectors from the SQL entity tables; this counts the edges matched."""
        g = self.graph
        return sum(1 for e, _ in rows if g.has_edge(e.source, e.target, key=_edge_key(e)))

    def clear(self, corpus: str) -> None:
        with self._session() as s:
            s.execute(delete(GraphEdgeRow).where(GraphEdgeRow.corpus == corpus))
            s.execute(delete(GraphNodeRow).where(GraphNodeRow.corpus == corpus))
        g = self.graph
        g.remove_nodes_from([n for n, d in g.nodes(data=True) if d.get("corpus") == corpus])

    def delete_nodes(self, uids: Sequence[str]) -> int:
        g = self.graph
        gone = [u for u in dict.fromkeys(uids) if u in g]
        if not gone:
            return 0
        with self._session() as s:
            for i in range(0, len(gone), _CHUNK):
                chunk = gone[i : i + _CHUNK]
                s.execute(delete(GraphEdgeRow).where(GraphEdgeRow.source.in_(chunk)))
                s.execute(delete(GraphEdgeRow).where(GraphEdgeRow.target.in_(chunk)))
                s.execute(delete(GraphNodeRow).where(GraphNodeRow.uid.in_(chunk)))
        g.remove_nodes_from(gone)
        return len(gone)

    def delete_edges(self, edges: Sequence[Edge]) -> int:
        g = self.graph
        gone = [
            e
            for e in dict.fromkeys(edges)
            if g.has_edge(e.source, e.target, f"{e.type.value}:{_edge_key(e)}")
        ]
        if not gone:
            return 0
        with self._session() as s:
            for e in gone:
                s.execute(
                    delete(GraphEdgeRow).where(
                        GraphEdgeRow.type == e.type.value,
                        GraphEdgeRow.source == e.source,
                        GraphEdgeRow.target == e.target,
                        GraphEdgeRow.key == _edge_key(e),
                    )
                )
        for e in gone:
            g.remove_edge(e.source, e.target, key=f"{e.type.value}:{_edge_key(e)}")
        return len(gone)

    # --- inventory ---
    def node_uids(self, corpus: str, label: str) -> set[str]:
        return {
            u for u, d in self.graph.nodes(data=True) if d.get("label") == label and d.get("corpus") == corpus
        }

    def edges(self, corpus: str, etype: EdgeType) -> list[Edge]:
        g = self.graph
        return [
            Edge(
                type=etype,
                source=u,
                target=v,
                text=d.get("text"),
                relation=d.get("relation"),
                section_ids=tuple(d.get("section_ids", ())),
            )
            for u, v, d in g.edges(data=True)
            if d.get("type") == etype.value and g.nodes[u].get("corpus") == corpus
        ]

    # --- reads ---
    def _node(self, uid: str) -> dict | None:
        """A node's properties (with its label); read as one SQL row while the graph is not loaded,
        so looking up a few provisions does not load the whole graph (fast `ask` from the CLI)."""
        if self._graph is not None:
            return self._graph.nodes.get(uid)
        with self.sql.session() as s:
            row = s.execute(
                select(GraphNodeRow.label, GraphNodeRow.props).where(GraphNodeRow.uid == uid)
            ).first()
        return {"label": row[0], **row[1]} if row else None

    def get_section(self, uid: str) -> Provision | None:
        d = self._node(uid)
        if not d or d.get("label") != SECTION:
            return None
        return Provision.model_validate({k: v for k, v in d.items() if k != "label"})

    def get_entity(self, uid: str) -> Entity | None:
        d = self._node(uid)
        if not d or d.get("label") != ENTITY:
            return None
        return Entity(
            corpus=d["corpus"],
            name=d["name"],
            label=d.get("entity_label", ""),
            section_ids=tuple(d.get("section_ids", ())),
        )

    def _neighbours(self, uid: str, etype: EdgeType, out: bool) -> list[tuple[str, dict]]:
        g = self.graph
        if uid not in g:
            return []
        edges = g.out_edges(uid, data=True) if out else g.in_edges(uid, data=True)
        return [((v if out else u), d) for u, v, d in edges if d.get("type") == etype.value]

    def _ordered(self, uids: Iterable[str]) -> list[str]:
        nodes = self.graph.nodes
        return sorted(set(uids), key=lambda u: (nodes[u].get("order", 0), u))

    def parent(self, uid: str) -> str | None:
        parents = self._neighbours(uid, EdgeType.HAS, out=False)
        return parents[0][0] if parents else None

    def children(self, uid: str) -> list[str]:
        return self._ordered(u for u, _ in self._neighbours(uid, EdgeType.HAS, out=True))

    def family(self, uids: Sequence[str]) -> dict[str, tuple[str | None, list[str]]]:
        return {u: (self.parent(u), self.children(u)) for u in dict.fromkeys(uids) if u in self.graph}

    def siblings(self, uid: str) -> list[str]:
        p = self.parent(uid)
        return [c for c in self.children(p) if c != uid] if p else []

    def references_out(self, uid: str) -> list[tuple[str, str | None]]:
        return [(u, d.get("text")) for u, d in self._neighbours(uid, EdgeType.REFERS_TO, out=True)]

    def references_in(self, uid: str) -> list[tuple[str, str | None]]:
        return [(u, d.get("text")) for u, d in self._neighbours(uid, EdgeType.REFERS_TO, out=False)]

    def refers_to_closure(self, uids: Iterable[str], max_depth: int) -> list[Reached]:
        starts = [u for u in dict.fromkeys(uids) if u in self.graph]
        seen = set(starts)
        queue = deque((u, (u,)) for u in starts)
        reached: list[Reached] = []
        while queue:
            uid, path = queue.popleft()
            if len(path) - 1 >= max_depth:
                continue
            for nxt, _ in self._neighbours(uid, EdgeType.REFERS_TO, out=True):
                if nxt in seen:
                    continue
                seen.add(nxt)
                npath = path + (nxt,)
                reached.append(Reached(uid=nxt, via="refers_to", depth=len(npath) - 1, path=npath))
                queue.append((nxt, npath))
        return reached

    def stats(self, corpus: str) -> GraphStats:
        g = self.graph
        nodes: dict[str, int] = {}
        entities = 0
        for _, d in g.nodes(data=True):
            if d.get("corpus") != corpus:
                continue
            if d.get("label") == ENTITY:
                entities += 1
            else:
                nodes[d.get("kind", "?")] = nodes.get(d.get("kind", "?"), 0) + 1
        edges: dict[str, int] = {}
        for u, _, d in g.edges(data=True):
            if g.nodes[u].get("corpus") == corpus:
                edges[d["type"]] = edges.get(d["type"], 0) + 1
        # requirement records live in SQL here and as (:Section)-[:STATES]->(:Requirement) in Neo4j: count
        # them alike
        if states := sum(make_uid(corpus, pid) in g for pid in requirement_provisions(self.sql, corpus)):
            edges[STATES] = states
        dangling = (self.sql.get_meta(corpus, "dangling_references") or {}).get("count", 0)
        return GraphStats(
            corpus=corpus,
            nodes_by_kind=dict(sorted(nodes.items())),
            edges_by_type=dict(sorted(edges.items())),
            dangling_references=dangling,
            entities=entities,
            relations=edges.get(EdgeType.RELATES.value, 0),
        )

    def write_requirements(self, corpus: str, reqs: Sequence[Requirement]) -> int:
        """Nothing to write: this store reads requirement records from the SQL store, where the builder put
        them."""
        return len(reqs)

    def release_connections(self, close: bool = True) -> None:
        """Nothing to drop: the in-memory graph is data (shared copy-on-write by forked workers);
        its SQL connections belong to the SQL store."""

    def close(self) -> None:
        self._graph = None
