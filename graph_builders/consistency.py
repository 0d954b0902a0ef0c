"""Does the graph store hold exactly what the SQL store says? (`bifrost graph check`)

The SQL store is the record: current provisions, current references and the entity tables. From
them the expected Section ids, HAS, REFERS_TO, Entity ids, MENTIONED_IN and RELATES edges are
derived exactly as the builders derive them, and compared with the graph store's inventory.
Any missing or extra item is a difference; an empty report means the two stores agree.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from bifrost.core.graph.base import GraphStore
from bifrost.core.relations import is_valid_relation
from bifrost.core.store import entity_tables
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edge, EdgeType
from bifrost.graph_builders.entities.build import graph_edges
from bifrost.graph_builders.navigator.build import has_edges, refers_to_edges

EXAMPLES = 5  # ids shown per difference


class Difference(BaseModel):
    """One kind of item whose sets differ between the stores."""

    item: str
    sql: int
    graph: int
    missing_in_graph: list[str] = Field(default_factory=list, description=f"up to {EXAMPLES} examples")
    extra_in_graph: list[str] = Field(default_factory=list, description=f"up to {EXAMPLES} examples")
    missing_count: int = 0
    extra_count: int = 0


class CheckReport(BaseModel):
    """Counts per item kind on each side and every difference found."""

    corpus: str
    counts: dict[str, tuple[int, int]] = Field(default_factory=dict, description="item -> (sql, graph)")
    differences: list[Difference] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


def _edge_keys(edges: Iterable[Edge]) -> set[str]:
    return {f"{e.source} -[{e.relation or e.type.value}]-> {e.target}" for e in edges}


def _compare(report: CheckReport, item: str, expected: set[str], actual: set[str]) -> None:
    report.counts[item] = (len(expected), len(actual))
    missing, extra = sorted(expected - actual), sorted(actual - expected)
    if missing or extra:
        report.differences.append(
            Difference(
                item=item,
                sql=len(expected),
                graph=len(actual),
                missing_in_graph=missing[:EXAMPLES],
                extra_in_graph=extra[:EXAMPLES],
                missing_count=len(missing),
                extra_count=len(extra),
            )
        )


def check_corpus(sql: SqlStore, graph: GraphStore, corpus: str) -> CheckReport:
    """Compare one corpus in the SQL store and a graph store, item kind by item kind."""
    report = CheckReport(corpus=corpus)
    provisions = sql.provisions(corpus)
    _compare(report, "Section", {p.uid for p in provisions}, graph.node_uids(corpus, "Section"))
    _compare(report, "HAS", _edge_keys(has_edges(provisions)), _edge_keys(graph.edges(corpus, EdgeType.HAS)))
    _compare(
        report,
        "REFERS_TO",
        _edge_keys(refers_to_edges(sql.references(corpus))),
        _edge_keys(graph.edges(corpus, EdgeType.REFERS_TO)),
    )
    with sql.session() as s:
        entities = entity_tables.load_entities(s, corpus)
        triples, _ = entity_tables.load_triple_matrix(s, corpus)
    triples = [t for t in triples if is_valid_relation(t.relation)]
    expected = graph_edges(corpus, entities, triples)
    _compare(report, "Entity", {e.uid for e in entities}, graph.node_uids(corpus, "Entity"))
    for etype in (EdgeType.MENTIONED_IN, EdgeType.RELATES):
        _compare(
            report,
            etype.value,
            _edge_keys(e for e in expected if e.type is etype),
            _edge_keys(graph.edges(corpus, etype)),
        )
    return report
