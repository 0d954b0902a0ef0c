"""Rows the Neo4j store writes: provisions round-trip, a bad relation name never makes a row."""

import pytest

from bifrost.core.graph.neo4j_rows import chunks, edge_row, provision_from, section_row
from bifrost.core.relations import RelationNameError
from bifrost.core.types import Edge, EdgeType
from tests.contract.sample_graph import TREE


def test_a_provision_round_trips_through_its_node_properties():
    assert [provision_from(section_row(p)) for p in TREE] == TREE
    assert "ord" in section_row(TREE[3]) and "order" not in section_row(TREE[3])


def test_a_relation_that_is_not_snake_case_raises_before_any_row_exists():
    with pytest.raises(RelationNameError) as err:
        edge_row(Edge(type=EdgeType.RELATES, source="a", target="b", relation="Protects from"))
    assert err.value.relation == "Protects from"


def test_rows_are_written_in_slices_of_the_batch_size():
    assert [list(c) for c in chunks([1, 2, 3, 4, 5], 2)] == [[1, 2], [3, 4], [5]]
