"""The GraphStore interface that both graphs (navigator and entity network) are written to.

Every store (embedded networkx, Neo4j) implements this protocol and passes the same
contract suite in ``tests/contract``. Nodes are keyed by uid (``corpus:id`` for sections,
``corpus:entity:name`` for entities); writes are idempotent upserts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from bifrost.core.requirement_types import Requirement
from bifrost.core.types import Edge, EdgeType, Entity, GraphStats, Provision, Reached


@runtime_checkable
class GraphStore(Protocol):
    """Storage and traversal of the dual graph."""

    # --- writes (idempotent) ---
    def upsert_sections(self, provisions: Sequence[Provision]) -> int:
        """Create or update Section nodes; returns how many were written."""
        ...

    def upsert_edges(self, edges: Sequence[Edge]) -> int:
        """Create edges between existing nodes (MERGE semantics); returns how many were written."""
        ...

    def upsert_entities(self, entities: Sequence[Entity]) -> int:
        """Create or update Entity nodes (section_ids are replaced by the given ones)."""
        ...

    def set_dangling_count(self, corpus: str, count: int) -> None:
        """Record how many references of a corpus could not be resolved (for stats)."""
        ...

    def set_entity_embeddings(self, rows: Sequence[tuple[str, Sequence[float]]]) -> int:
        """Attach ``(entity uid, vector)`` pairs to Entity nodes (for a vector index); returns how many
        matched."""
        ...

    def set_triple_embeddings(self, rows: Sequence[tuple[Edge, Sequence[float]]]) -> int:
        """Attach ``(RELATES edge, [h, r, t] vector)`` pairs to their edges; returns how many matched."""
        ...

    def write_requirements(self, corpus: str, reqs: Sequence[Requirement]) -> int:
        """Replace the corpus's requirement records in the graph (``STATES`` edges); a store that reads them
        from the SQL store writes nothing. Returns the records the graph now holds."""
        ...

    def clear(self, corpus: str) -> None:
        """Remove every node and edge of a corpus."""
        ...

    def atomic(self) -> AbstractContextManager[None]:
        """Run every write inside the block as one transaction: readers (other processes included)
        see the graph before the block or after it, never a mix; an error or a kill keeps the before.

        Builds wrap their structural writes (nodes and edges) in it; reads inside see the pending writes.
        """
        ...

    def delete_nodes(self, uids: Sequence[str]) -> int:
        """Remove nodes (Section or Entity) with every edge touching them; returns how many existed.

        Used when an edition retires provisions or an entity loses its last provision, so that no
        stale node or edge stays behind.
        """
        ...

    def delete_edges(self, edges: Sequence[Edge]) -> int:
        """Remove the given edges (matched by type, ends and, for RELATES, relation); returns how many
        existed."""
        ...

    # --- inventory (sync and consistency checks) ---
    def node_uids(self, corpus: str, label: str) -> set[str]:
        """Uids of a corpus's nodes with one label (``Section`` or ``Entity``)."""
        ...

    def edges(self, corpus: str, etype: EdgeType) -> list[Edge]:
        """Every edge of one type that leaves a node of the corpus (text and relation included)."""
        ...

    # --- reads ---
    def get_section(self, uid: str) -> Provision | None:
        """A Section node as a Provision, or None."""
        ...

    def parent(self, uid: str) -> str | None:
        """Uid of the HAS parent, if any."""
        ...

    def children(self, uid: str) -> list[str]:
        """Uids of HAS children, in document order."""
        ...

    def family(self, uids: Sequence[str]) -> dict[str, tuple[str | None, list[str]]]:
        """Parent and children (document order) of many nodes in one call; unknown uids are left out."""
        ...

    def siblings(self, uid: str) -> list[str]:
        """Uids of the other children of the parent, in document order."""
        ...

    def references_out(self, uid: str) -> list[tuple[str, str | None]]:
        """(target uid, raw text) of REFERS_TO edges leaving a node."""
        ...

    def references_in(self, uid: str) -> list[tuple[str, str | None]]:
        """(source uid, raw text) of REFERS_TO edges entering a node."""
        ...

    def refers_to_closure(self, uids: Iterable[str], max_depth: int) -> list[Reached]:
        """Nodes reachable by following REFERS_TO up to ``max_depth`` hops (start nodes excluded).

        Each node appears once, at its smallest depth, with one shortest path from a start node.
        """
        ...

    def get_entity(self, uid: str) -> Entity | None:
        """An Entity node, or None."""
        ...

    def stats(self, corpus: str) -> GraphStats:
        """Counts of nodes by kind and edges by type for a corpus."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...

    def release_connections(self, close: bool = True) -> None:
        """Drop pooled connections but keep loaded data, so the next use opens new ones: before a
        server forks workers (``close=True``) and in each forked worker (``close=False``: sockets
        shared with the parent are forgotten, never closed from the child)."""
        ...
