"""The Neo4j GraphStore: the dual graph in a Neo4j 5.26 server, through the official driver.

Same contract as the embedded store (``tests/contract/test_graph_store_contract.py``). Schema and
query text live in `bifrost.core.graph.neo4j_queries`; this module batches rows, checks inputs at
the door and turns driver failures into `StoreError` naming the server.

Design choices:

- The schema (uniqueness constraints, a (corpus, id) index, a full-text index on Section
  text + heading, cosine vector indexes for entity and triple embeddings) is created once per
  store object, on first use, with ``IF NOT EXISTS``: safe to run any number of times.
- Relations between entities are ``(:Entity)-[:RELATES {relation}]->(:Entity)``: one
  relationship type, the snake_case relation name a property (checked against
  `RELATION_PATTERN` before it reaches a query). Triple embeddings (``[h, r, t]``, 3 x d)
  are stored on that relationship and indexed by a relationship vector index.
- ``refers_to_closure`` is a breadth-first search with one Cypher query per depth inside one
  read transaction: each step returns the REFERS_TO out-neighbours of the frontier, Python
  keeps the visited set and the paths, so a node is reported once, at its smallest depth,
  with one shortest path, and the work is bounded by the edges of the reached nodes (a
  variable-length pattern would enumerate every path up to the depth).

The connection (driver, schema, batches, errors, the atomic block) is `neo4j_connection.Neo4jConnection`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bifrost.core.graph import neo4j_queries as q
from bifrost.core.graph.neo4j_connection import Neo4jConnection
from bifrost.core.graph.neo4j_rows import (
    cites_rows,
    edge_row,
    precedent_row,
    provision_from,
    requirement_row,
    section_row,
)
from bifrost.core.precedent_types import Precedent
from bifrost.core.requirement_types import Requirement
from bifrost.core.relations import check_relation
from bifrost.core.types import Edge, EdgeType, Entity, GraphStats, Provision, Reached

_EDGE_QUERIES = {
    EdgeType.HAS: q.UPSERT_HAS,
    EdgeType.REFERS_TO: q.UPSERT_REFERS_TO,
    EdgeType.MENTIONED_IN: q.UPSERT_MENTIONED_IN,
    EdgeType.RELATES: q.UPSERT_RELATES,
}


class Neo4jGraphStore(Neo4jConnection):
    """GraphStore on a Neo4j 5.26 server; see `bifrost.core.graph.base.GraphStore` for the contract and
    `Neo4jConnection` for the arguments (the constructor does no I/O)."""

    # --- writes ------------------------------------------------------------------------------

    def upsert_sections(self, provisions: Sequence[Provision]) -> int:
        rows = [section_row(p) for p in provisions]
        self._write_batches(q.UPSERT_SECTIONS, rows, "writing sections")
        return len(rows)

    def upsert_entities(self, entities: Sequence[Entity]) -> int:
        rows = [
            {
                "uid": e.uid,
                "corpus": e.corpus,
                "name": e.name,
                "label": e.label,
                "section_ids": list(e.section_ids),
            }
            for e in entities
        ]
        self._write_batches(q.UPSERT_ENTITIES, rows, "writing entities")
        return len(rows)

    def upsert_edges(self, edges: Sequence[Edge]) -> int:
        by_type: dict[EdgeType, list[dict[str, Any]]] = {}
        for e in edges:  # check every row before writing any
            by_type.setdefault(e.type, []).append(edge_row(e))
        written = 0
        for etype, rows in by_type.items():
            written += self._write_batches(_EDGE_QUERIES[etype], rows, f"writing {etype.value} edges")
        return written

    def write_precedents(self, corpus: str, precedents: Sequence[Precedent]) -> int:
        """Replace the corpus's precedents: ``(:Precedent)-[:CITES]->(:Section)`` for each citation the corpus
        holds; citations outside it are kept on the precedent (``outside``). Returns the precedents
        written."""
        self.ensure_schema()
        self._write(q.CLEAR_PRECEDENTS, f"clearing the precedents of {corpus!r}", corpus=corpus)
        written = self._write_batches(
            q.UPSERT_PRECEDENTS, [precedent_row(p) for p in precedents], "writing precedents"
        )
        self._write_batches(
            q.UPSERT_CITES, [row for p in precedents for row in cites_rows(p)], "writing CITES edges"
        )
        return written

    def write_requirements(self, corpus: str, reqs: Sequence[Requirement]) -> int:
        """Replace the corpus's requirement records: ``(:Section)-[:STATES]->(:Requirement)``, its conditions
        (``-[:WHEN]->(:Condition)``) and exceptions (``-[:EXCEPT]->(:Exception)``). Returns the records
        written."""
        self.ensure_schema()
        self._write(q.CLEAR_REQUIREMENTS, f"clearing the requirements of {corpus!r}", corpus=corpus)
        rows = [requirement_row(r) for r in reqs]
        self._write_batches(q.UPSERT_REQUIREMENTS, rows, "writing requirements")
        self._write_batches(q.UPSERT_EXCEPTIONS, [r for r in rows if r["exceptions"]], "writing exceptions")
        return len(rows)

    def set_dangling_count(self, corpus: str, count: int) -> None:
        if count < 0:
            raise ValueError(f"dangling reference count must be >= 0, got {count}")
        self._write(q.SET_DANGLING_COUNT, "recording dangling references", corpus=corpus, count=count)

    def clear(self, corpus: str) -> None:
        """Remove every node and edge of a corpus (its precedents too), and its recorded dangling count."""
        if self._tx is not None:  # CALL ... IN TRANSACTIONS cannot run inside the atomic block
            for cypher in (
                q.CLEAR_REQUIREMENTS,
                q.CLEAR_SECTIONS_IN_TX,
                q.CLEAR_ENTITIES_IN_TX,
                q.CLEAR_PRECEDENTS,
                q.CLEAR_META,
            ):
                self._write(cypher, f"clearing corpus {corpus!r}", corpus=corpus)
            return
        self.ensure_schema()
        with self._errors(f"clearing corpus {corpus!r}"), self.driver.session(database=self.database) as s:
            s.run(q.CLEAR_REQUIREMENTS, corpus=corpus).consume()
            for stmt in (q.CLEAR_SECTIONS, q.CLEAR_ENTITIES):
                s.run(stmt, corpus=corpus, chunk=10_000).consume()
            s.run(q.CLEAR_PRECEDENTS, corpus=corpus).consume()
            s.run(q.CLEAR_META, corpus=corpus).consume()

    def delete_nodes(self, uids: Sequence[str]) -> int:
        rows = [{"uid": u} for u in dict.fromkeys(uids)]
        return self._write_batches(q.DELETE_NODES, rows, "deleting nodes")

    def delete_edges(self, edges: Sequence[Edge]) -> int:
        gone = 0
        for etype in EdgeType:
            rows = [edge_row(e) for e in dict.fromkeys(edges) if e.type is etype]
            if rows:
                gone += self._write_batches(
                    q.DELETE_EDGES[etype.value], rows, f"deleting {etype.value} edges"
                )
        return gone

    def node_uids(self, corpus: str, label: str) -> set[str]:
        return {r["uid"] for r in self._read(q.NODE_UIDS, "listing nodes", corpus=corpus, label=label)}

    def edges(self, corpus: str, etype: EdgeType) -> list[Edge]:
        records = self._read(q.EDGES_OF_TYPE, f"listing {etype.value} edges", corpus=corpus, type=etype.value)
        return [
            Edge(
                type=etype,
                source=r["source"],
                target=r["target"],
                text=r["text"],
                relation=r["relation"],
                section_ids=tuple(r["section_ids"] or ()),
            )
            for r in records
        ]

    def set_entity_embeddings(self, rows: Sequence[tuple[str, Sequence[float]]]) -> int:
        """Store ``(entity uid, vector)`` pairs for the entity vector index; returns how many matched."""
        payload = [{"uid": uid, "embedding": self._vector(v, self.embedding_dim, uid)} for uid, v in rows]
        return self._write_batches(q.SET_ENTITY_EMBEDDINGS, payload, "writing entity embeddings")

    def set_triple_embeddings(self, rows: Sequence[tuple[Edge, Sequence[float]]]) -> int:
        """Store ``(RELATES edge, [h, r, t] vector)`` pairs; returns how many edges matched."""
        payload = []
        for e, v in rows:
            if e.type is not EdgeType.RELATES:
                raise ValueError(f"triple embeddings belong on RELATES edges, got {e.type.value}")
            payload.append(
                {
                    "source": e.source,
                    "target": e.target,
                    "relation": check_relation(e.relation),
                    "embedding": self._vector(v, self.triple_dim, f"{e.source} {e.relation} {e.target}"),
                }
            )
        return self._write_batches(q.SET_TRIPLE_EMBEDDINGS, payload, "writing triple embeddings")

    @staticmethod
    def _vector(v: Sequence[float], dim: int, what: str) -> list[float]:
        if len(v) != dim:
            raise ValueError(f"embedding of {what} has {len(v)} dimensions, the index expects {dim}")
        return [float(x) for x in v]

    # --- reads -------------------------------------------------------------------------------

    def get_section(self, uid: str) -> Provision | None:
        recs = self._read(q.GET_SECTION, "reading a section", uid=uid)
        return provision_from(dict(recs[0]["props"])) if recs else None

    def get_entity(self, uid: str) -> Entity | None:
        recs = self._read(q.GET_ENTITY, "reading an entity", uid=uid)
        if not recs:
            return None
        r = recs[0]
        return Entity(
            corpus=r["corpus"],
            name=r["name"],
            label=r["label"] or "",
            section_ids=tuple(r["section_ids"] or ()),
        )

    def parent(self, uid: str) -> str | None:
        recs = self._read(q.PARENT, "reading a parent", uid=uid)
        return recs[0]["uid"] if recs else None

    def children(self, uid: str) -> list[str]:
        return [r["uid"] for r in self._read(q.CHILDREN, "reading children", uid=uid)]

    def family(self, uids: Sequence[str]) -> dict[str, tuple[str | None, list[str]]]:
        recs = self._read(q.FAMILY, "reading parents and children", uids=list(dict.fromkeys(uids)))
        return {r["uid"]: (r["parent"], list(r["children"])) for r in recs}

    def siblings(self, uid: str) -> list[str]:
        return [r["uid"] for r in self._read(q.SIBLINGS, "reading siblings", uid=uid)]

    def references_out(self, uid: str) -> list[tuple[str, str | None]]:
        return [(r["uid"], r["text"]) for r in self._read(q.REFERENCES_OUT, "reading references", uid=uid)]

    def references_in(self, uid: str) -> list[tuple[str, str | None]]:
        return [(r["uid"], r["text"]) for r in self._read(q.REFERENCES_IN, "reading references", uid=uid)]

    def refers_to_closure(self, uids: Iterable[str], max_depth: int) -> list[Reached]:
        if max_depth < 0:
            raise ValueError(f"max_depth must be >= 0, got {max_depth}")
        wanted = list(dict.fromkeys(uids))
        if not wanted or max_depth == 0:
            return []
        self.ensure_schema()

        def bfs(tx: Any) -> list[Reached]:
            # Starts that are not in the graph have no edges: they drop out at the first step.
            frontier = [(u, (u,)) for u in wanted]
            seen = {u for u, _ in frontier}
            reached: list[Reached] = []
            for depth in range(1, max_depth + 1):
                if not frontier:
                    break
                nxt: list[tuple[str, tuple[str, ...]]] = []
                for rec in tx.run(q.REFERS_TO_STEP, frontier=[u for u, _ in frontier]):
                    uid = rec["uid"]
                    if uid in seen:
                        continue
                    seen.add(uid)
                    path = frontier[rec["i"]][1] + (uid,)
                    reached.append(Reached(uid=uid, via="refers_to", depth=depth, path=path))
                    nxt.append((uid, path))
                frontier = nxt
            return reached

        with self._errors("following REFERS_TO"), self.driver.session(database=self.database) as s:
            return s.execute_read(bfs)

    def search_sections(
        self, query: str, top_k: int = 10, corpus: str | None = None
    ) -> list[tuple[str, float]]:
        """Full-text (Lucene) search over Section text and heading: ``(uid, score)``, best first."""
        if top_k <= 0:
            raise ValueError(f"top_k must be > 0, got {top_k}")
        recs = self._read(
            q.SEARCH_SECTIONS_FULLTEXT,
            "searching sections",
            query=query,
            top_k=top_k,
            fetch=top_k if corpus is None else top_k * 10,
            corpus=corpus,
        )
        return [(r["uid"], float(r["score"])) for r in recs]

    def similar_entities(
        self, vector: Sequence[float], top_k: int = 10, corpus: str | None = None
    ) -> list[tuple[str, float]]:
        """Nearest entities by cosine similarity of their embeddings: ``(uid, score)``."""
        if top_k <= 0:
            raise ValueError(f"top_k must be > 0, got {top_k}")
        recs = self._read(
            q.SIMILAR_ENTITIES,
            "searching entity embeddings",
            vector=self._vector(vector, self.embedding_dim, "query"),
            top_k=top_k,
            fetch=top_k if corpus is None else top_k * 10,
            corpus=corpus,
        )
        return [(r["uid"], float(r["score"])) for r in recs]

    def similar_triples(
        self, vector: Sequence[float], top_k: int = 10, corpus: str | None = None
    ) -> list[tuple[str, str, str, float]]:
        """Nearest triples by cosine similarity: ``(head uid, relation, tail uid, score)``."""
        if top_k <= 0:
            raise ValueError(f"top_k must be > 0, got {top_k}")
        recs = self._read(
            q.SIMILAR_TRIPLES,
            "searching triple embeddings",
            vector=self._vector(vector, self.triple_dim, "query"),
            top_k=top_k,
            fetch=top_k if corpus is None else top_k * 10,
            corpus=corpus,
        )
        return [(r["head"], r["relation"], r["tail"], float(r["score"])) for r in recs]

    def counts(self, corpus: str) -> tuple[int, int]:
        """(nodes, relationships) of a corpus, for idempotency checks and benchmarks."""
        rec = self._read(q.COUNT_CORPUS, "counting", corpus=corpus)[0]
        return int(rec["nodes"]), int(rec["relationships"])

    def stats(self, corpus: str) -> GraphStats:
        self.ensure_schema()

        def read(tx: Any) -> GraphStats:
            nodes = {r["kind"] or "?": int(r["n"]) for r in tx.run(q.STATS_SECTIONS, corpus=corpus)}
            entities = int(tx.run(q.STATS_ENTITIES, corpus=corpus).single()["n"])
            edges = {r["type"]: int(r["n"]) for r in tx.run(q.STATS_EDGES, corpus=corpus)}
            meta = tx.run(q.STATS_DANGLING, corpus=corpus).single()
            return GraphStats(
                corpus=corpus,
                nodes_by_kind=dict(sorted(nodes.items())),
                edges_by_type=dict(sorted(edges.items())),
                dangling_references=int(meta["n"] or 0) if meta else 0,
                entities=entities,
                relations=edges.get(EdgeType.RELATES.value, 0),
            )

        with self._errors(f"reading stats of {corpus!r}"), self.driver.session(database=self.database) as s:
            return s.execute_read(read)
