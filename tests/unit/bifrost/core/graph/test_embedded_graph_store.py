"""The embedded (networkx + SQL) store persists; the GraphStore contract is tests/contract/."""

from bifrost.core.graph.embedded import EmbeddedGraphStore
from bifrost.core.store.sql_store import SqlStore
from tests.contract.sample_graph import HAS, REFS, TREE, C, u


def test_a_new_process_sees_the_graph_an_earlier_one_built(tmp_path):
    url = f"sqlite:///{tmp_path / 'g.db'}"
    first = EmbeddedGraphStore(SqlStore(url))
    first.upsert_sections(TREE)
    first.upsert_edges(HAS + REFS)
    second = EmbeddedGraphStore(SqlStore(url))
    assert second.stats(C) == first.stats(C)
    assert second.children(u("1926.501(b)")) == first.children(u("1926.501(b)"))
