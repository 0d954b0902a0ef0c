"""The graph-rag-langchain baseline's graph kept apart from Bifrost's own in the shared Neo4j database.

Bifrost's labels and relationship types are hidden from the chain's schema, a query naming them is
refused, the chain's queries run in read-only transactions, and an extracted type that collides with
one of them (or with the baseline's Document/MENTIONS structure) is renamed.
"""

from __future__ import annotations

import re
from typing import Any

from bifrost.core.errors import BifrostError

# Bifrost's own graph in the same database (bifrost/core/graph/neo4j_store.py): never shown or queried.
BIFROST_LABELS = ("Section", "Entity", "CorpusMeta")
BIFROST_REL_TYPES = ("HAS", "REFERS_TO", "RELATES", "MENTIONED_IN")
# The baseline's own structural names (Neo4jGraph.add_graph_documents): not for extracted nodes.
SOURCE_LABEL, SOURCE_REL = "Document", "MENTIONS"
_BIFROST_NAME = re.compile(r"[:|]\s*`?(" + "|".join(BIFROST_LABELS + BIFROST_REL_TYPES) + r")`?(?!\w)")


class ForbiddenQuery(BifrostError):
    """A generated Cypher query names Bifrost's own labels or relationship types."""


def read_only_graph_class():
    """`Neo4jGraph` as the chain sees it: read transactions only, Bifrost's names refused."""
    from langchain_neo4j import Neo4jGraph
    from neo4j import Query, RoutingControl

    class ReadOnlyNeo4jGraph(Neo4jGraph):
        """The chain's view: read transactions only, and never Bifrost's own labels or types."""

        def query(
            self, query: str, params: dict | None = None, session_params: dict | None = None
        ) -> list[dict[str, Any]]:
            bad = _BIFROST_NAME.search(query)
            if bad:
                raise ForbiddenQuery(
                    f"the query names {bad.group(1)!r}, part of Bifrost's own graph, not this baseline's"
                )
            self._check_driver_state()
            records, _, _ = self._driver.execute_query(
                Query(text=query, timeout=self.timeout),
                database_=self._database,
                parameters_=params or {},
                routing_=RoutingControl.READ,  # the server refuses writes in a read transaction
            )
            return [r.data() for r in records]

    return ReadOnlyNeo4jGraph


def keep_apart(graph_doc: Any) -> Any:
    """Rename extracted node labels and relationship types that collide with Bifrost's graph or with
    the baseline's Document/MENTIONS structure (``Entity`` -> ``ExtractedEntity``, ``HAS`` ->
    ``EXTRACTED_HAS``)."""
    reserved_labels = set(BIFROST_LABELS) | {SOURCE_LABEL}
    reserved_types = set(BIFROST_REL_TYPES) | {SOURCE_REL}

    def fix_node(node: Any) -> None:
        node.id = str(node.id)
        label = str(node.type or "").replace("`", "").strip() or "Concept"
        node.type = f"Extracted{label}" if label in reserved_labels else label

    for node in graph_doc.nodes:
        fix_node(node)
    for rel in graph_doc.relationships:
        fix_node(rel.source)
        fix_node(rel.target)
        rtype = str(rel.type).replace("`", "").replace(" ", "_").upper()
        rel.type = f"EXTRACTED_{rtype}" if rtype in reserved_types else rtype
    return graph_doc
