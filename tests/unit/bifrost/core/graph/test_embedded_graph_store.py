"""The embedded (networkx + SQL) store passes the GraphStore contract and persists."""

import pytest

from bifrost.core.graph.embedded import EmbeddedGraphStore
from bifrost.core.store.sql_store import SqlStore
from tests.contract.graph_store_contract import HAS, REFS, TREE, C, GraphStoreContract, u


class TestEmbeddedGraphStore(GraphStoreContract):
    @pytest.fixture
    def store(self, tmp_path):
        st = EmbeddedGraphStore(SqlStore(f"sqlite:///{tmp_path / 'g.db'}"))
        yield st
        st.close()


def test_a_new_process_sees_the_graph_an_earlier_one_built(tmp_path):
    url = f"sqlite:///{tmp_path / 'g.db'}"
    first = EmbeddedGraphStore(SqlStore(url))
    first.upsert_sections(TREE)
    first.upsert_edges(HAS + REFS)
    second = EmbeddedGraphStore(SqlStore(url))
    assert second.stats(C) == first.stats(C)
    assert second.children(u("1926.501(b)")) == first.children(u("1926.501(b)"))
