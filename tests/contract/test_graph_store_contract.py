"""The GraphStore contract: every store runs these same tests, once per store.

Stores: embedded (networkx persisted in SQL) on SQLite always and on PostgreSQL against
``BIFROST_TEST_PG_URL`` (a new database per test); Neo4j against ``BIFROST_NEO4J_URI``. Without a
server: a visible skip on a developer machine, a failure under ``CI=true``
(tests/integration/neo4j_env.py, postgres_env.py).
The Neo4j run clears the corpora it uses before and after each test, nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bifrost.core.errors import NotFoundError
from bifrost.core.graph.base import GraphStore
from bifrost.core.graph.embedded import EmbeddedGraphStore
from bifrost.core.graph.subgraph import navigator_subgraph
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edge, EdgeType, Entity, Provision, ProvisionKind, make_uid
from tests.contract.sample_graph import HAS, REFS, TREE, C, u

OTHER = "other-corpus"


def _embedded(tmp_path: Path) -> Iterator[GraphStore]:
    st = EmbeddedGraphStore(SqlStore(f"sqlite:///{tmp_path / 'g.db'}"))
    yield st
    st.close()


def _embedded_postgres(tmp_path: Path) -> Iterator[GraphStore]:
    from tests.integration.postgres_env import fresh_database

    with fresh_database() as url:
        sql = SqlStore(url)
        st = EmbeddedGraphStore(sql)
        yield st
        st.close()
        sql.dispose()


def _neo4j(tmp_path: Path) -> Iterator[GraphStore]:
    from tests.integration.neo4j_env import neo4j_store

    st = neo4j_store(batch_size=3)  # small batches: several UNWIND transactions per write
    for corpus in (C, OTHER):
        st.clear(corpus)
    yield st
    for corpus in (C, OTHER):
        st.clear(corpus)
    st.close()


STORES = {"embedded": _embedded, "embedded-postgres": _embedded_postgres, "neo4j": _neo4j}


@pytest.fixture(
    params=[
        "embedded",
        pytest.param("embedded-postgres", marks=pytest.mark.postgres),
        pytest.param("neo4j", marks=pytest.mark.neo4j),
    ]
)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphStore]:
    """An empty store of each kind."""
    yield from STORES[request.param](tmp_path)


class TestGraphStoreContract:
    """Behaviour every GraphStore must have."""

    @pytest.fixture
    def loaded(self, store):
        store.upsert_sections(TREE)
        store.upsert_edges(HAS + REFS)
        return store

    def test_a_section_round_trips_with_all_fields(self, store):
        store.upsert_sections(TREE)
        got = store.get_section(u("1926.502(k)"))
        assert got == TREE[9]

    def test_unknown_uid_gives_none_and_empty_neighbourhoods(self, loaded):
        assert loaded.get_section(u("1926.999")) is None
        assert loaded.children(u("1926.999")) == []
        assert loaded.parent(u("1926.999")) is None
        assert loaded.refers_to_closure([u("1926.999")], 3) == []

    def test_upsert_updates_changed_text(self, loaded):
        changed = TREE[9].model_copy(update={"text": "new text"})
        loaded.upsert_sections([changed])
        assert loaded.get_section(changed.uid).text == "new text"

    def test_writing_twice_leaves_the_same_counts(self, loaded):
        before = loaded.stats(C)
        loaded.upsert_sections(TREE)
        loaded.upsert_edges(HAS + REFS)
        assert loaded.stats(C) == before

    def test_released_connections_reopen_on_next_use_and_the_data_stays(self, loaded):
        before = loaded.stats(C)
        loaded.release_connections()  # as a server does before forking workers
        assert loaded.stats(C) == before
        loaded.release_connections(close=False)  # as each forked worker does
        loaded.upsert_sections([TREE[9]])
        assert loaded.stats(C) == before
        assert loaded.get_section(TREE[9].uid) == TREE[9]

    def test_stats_count_nodes_by_kind_and_edges_by_type(self, loaded):
        loaded.set_dangling_count(C, 7)
        st = loaded.stats(C)
        assert st.nodes_by_kind == {"paragraph": 7, "part": 1, "section": 2, "subpart": 1}
        assert st.edges_by_type == {"HAS": 10, "REFERS_TO": 4}
        assert st.dangling_references == 7

    def test_children_come_in_document_order_and_parent_is_inverse(self, loaded):
        assert loaded.children(u("1926.501(b)")) == [u("1926.501(b)(2)"), u("1926.501(b)(12)")]
        assert loaded.parent(u("1926.501(b)(2)(ii)")) == u("1926.501(b)(2)")

    def test_family_gives_parent_and_ordered_children_of_many_nodes_at_once(self, loaded):
        fam = loaded.family([u("1926.501(b)"), u("1926.502(k)(1)"), u("1926.999")])
        assert fam == {
            u("1926.501(b)"): (u("1926.501"), [u("1926.501(b)(2)"), u("1926.501(b)(12)")]),
            u("1926.502(k)(1)"): (u("1926.502(k)"), []),
        }

    def test_siblings_exclude_the_node_itself(self, loaded):
        assert loaded.siblings(u("1926.501(b)(2)(i)")) == [u("1926.501(b)(2)(ii)")]
        assert loaded.siblings(u("1926")) == []

    def test_references_keep_their_raw_text_both_ways(self, loaded):
        assert loaded.references_out(u("1926.501(b)(2)(i)")) == [
            (u("1926.502(k)"), "paragraph (k) of § 1926.502")
        ]
        assert (u("1926.501(b)(2)(i)"), "paragraph (k) of § 1926.502") in loaded.references_in(
            u("1926.502(k)")
        )

    def test_closure_is_bounded_by_depth(self, loaded):
        one = loaded.refers_to_closure([u("1926.501(b)(2)(i)")], 1)
        assert [(r.uid, r.depth) for r in one] == [(u("1926.502(k)"), 1)]

    def test_closure_reaches_each_node_once_at_its_smallest_depth_with_a_path(self, loaded):
        got = loaded.refers_to_closure([u("1926.501(b)(2)(i)")], 10)
        assert sorted((r.uid, r.depth) for r in got) == sorted(
            [(u("1926.502(k)"), 1), (u("1926.501(b)(12)"), 2), (u("1926.502(k)(1)"), 3)]
        )
        deep = next(r for r in got if r.depth == 3)
        assert deep.path == (
            u("1926.501(b)(2)(i)"),
            u("1926.502(k)"),
            u("1926.501(b)(12)"),
            u("1926.502(k)(1)"),
        )
        assert all(r.via == "refers_to" for r in got)

    def test_closure_excludes_start_nodes_even_on_a_cycle(self, loaded):
        got = loaded.refers_to_closure([u("1926.501(b)(2)(i)"), u("1926.502(k)")], 10)
        uids = [r.uid for r in got]
        assert u("1926.501(b)(2)(i)") not in uids and u("1926.502(k)") not in uids
        assert len(uids) == len(set(uids))

    def test_subgraph_at_depth_one_has_parent_children_and_references_both_ways(self, loaded):
        g = navigator_subgraph(loaded, C, "1926.502(k)", 1, [EdgeType.HAS, EdgeType.REFERS_TO])
        assert {(n.id, n.depth) for n in g.nodes} == {
            ("1926.502(k)", 0),
            ("1926.502", 1),
            ("1926.502(k)(1)", 1),
            ("1926.501(b)(12)", 1),
            ("1926.501(b)(2)(i)", 1),
        }
        assert {(e.type.value, e.source, e.target) for e in g.edges} == {
            ("HAS", "1926.502", "1926.502(k)"),
            ("HAS", "1926.502(k)", "1926.502(k)(1)"),
            ("REFERS_TO", "1926.502(k)", "1926.501(b)(12)"),
            ("REFERS_TO", "1926.501(b)(2)(i)", "1926.502(k)"),
        }
        assert not g.truncated and g.nodes[0].heading == "heading 1926.502(k)"

    def test_subgraph_follows_only_the_kinds_asked_up_to_the_depth(self, loaded):
        g = navigator_subgraph(loaded, C, "1926.501(b)(2)(i)", 2, [EdgeType.REFERS_TO])
        assert {(n.id, n.depth) for n in g.nodes} == {
            ("1926.501(b)(2)(i)", 0),
            ("1926.502(k)", 1),
            ("1926.502(k)(1)", 1),
            ("1926.501(b)(12)", 2),
        }
        assert {e.type for e in g.edges} == {EdgeType.REFERS_TO}
        assert navigator_subgraph(loaded, C, "1926.501(b)(2)(i)", 0, [EdgeType.HAS]).edges == ()

    def test_subgraph_stops_at_the_node_limit_and_says_so(self, loaded):
        g = navigator_subgraph(loaded, C, "1926.501(b)", 3, [EdgeType.HAS], limit=3)
        ids = {n.id for n in g.nodes}
        assert len(ids) == 3 and g.truncated
        assert all(e.source in ids and e.target in ids for e in g.edges)

    def test_subgraph_of_an_unknown_provision_is_not_found(self, loaded):
        with pytest.raises(NotFoundError):
            navigator_subgraph(loaded, C, "1926.999", 1, [EdgeType.HAS])

    def test_edges_to_missing_nodes_are_not_created(self, loaded):
        loaded.upsert_edges(
            [Edge(type=EdgeType.REFERS_TO, source=u("1926.502(k)"), target=u("1910.134"), text="x")]
        )
        assert loaded.references_out(u("1926.502(k)")) == [(u("1926.501(b)(12)"), "§ 1926.501(b)(12)")]
        assert loaded.get_section(u("1910.134")) is None

    def test_entities_mentions_and_relations_are_counted(self, loaded):
        ents = [
            Entity(corpus=C, name="guardrail system", label="equipment", section_ids=("1926.502(k)",)),
            Entity(
                corpus=C, name="employee", label="person", section_ids=("1926.501(b)(2)(i)", "1926.502(k)")
            ),
        ]
        loaded.upsert_entities(ents)
        loaded.upsert_edges(
            [Edge(type=EdgeType.MENTIONED_IN, source=ents[0].uid, target=u("1926.502(k)"))]
            + [Edge(type=EdgeType.MENTIONED_IN, source=ents[1].uid, target=u(s)) for s in ents[1].section_ids]
            + [
                Edge(
                    type=EdgeType.RELATES,
                    source=ents[0].uid,
                    target=ents[1].uid,
                    relation="protect",
                    section_ids=("1926.502(k)",),
                )
            ]
        )
        assert loaded.get_entity(ents[1].uid) == ents[1]
        st = loaded.stats(C)
        assert st.entities == 2 and st.relations == 1
        assert st.edges_by_type["MENTIONED_IN"] == 3
        assert st.nodes_by_kind == {"paragraph": 7, "part": 1, "section": 2, "subpart": 1}

    def test_requirement_records_count_as_states_edges_of_the_sections_the_graph_holds(
        self, loaded, tmp_path
    ):
        from bifrost.graph_builders.requirements.build import build_requirements

        # Neo4j keeps its own
        sql = getattr(loaded, "sql", None) or SqlStore(f"sqlite:///{tmp_path / 'records.db'}")
        rules = [
            TREE[9].model_copy(
                update={"text": "Employers shall provide a net. Each net shall be inspected."}
            ),
            TREE[10].model_copy(update={"text": "Nets need not be used where the fall is less than 6 feet."}),
            Provision(corpus=C, id="1926.999", kind=ProvisionKind.SECTION, text="Employers shall act."),
        ]
        report = build_requirements(sql, C, rules, loaded)
        assert report.records == 4
        assert loaded.stats(C).edges_by_type["STATES"] == 3  # 1926.999 is not in this graph
        build_requirements(sql, C, rules, loaded)  # rebuilt: replaced, not added
        assert loaded.stats(C).edges_by_type["STATES"] == 3

    def test_clear_removes_only_that_corpus(self, loaded):
        other = Provision(corpus=OTHER, id="1", kind=ProvisionKind.SECTION)
        loaded.upsert_sections([other])
        loaded.clear(C)
        assert loaded.get_section(u("1926.502")) is None
        assert loaded.get_section(other.uid) == other
        assert loaded.stats(C).edges_by_type == {}
        loaded.clear(OTHER)


class TestRetiringAndInventory:
    """Editions retire nodes and edges; sync and `graph check` read a corpus's inventory."""

    @pytest.fixture
    def loaded(self, store):
        store.upsert_sections(TREE)
        store.upsert_edges(HAS + REFS)
        return store

    def test_inventory_lists_every_section_and_edge_of_the_corpus(self, loaded):
        assert loaded.node_uids(C, "Section") == {p.uid for p in TREE}
        assert loaded.node_uids(C, "Entity") == set()
        assert set(loaded.edges(C, EdgeType.HAS)) == set(HAS)
        assert set(loaded.edges(C, EdgeType.REFERS_TO)) == set(REFS)

    def test_deleting_a_node_removes_it_and_every_edge_touching_it(self, loaded):
        assert loaded.delete_nodes([u("1926.502(k)"), u("no-such-id")]) == 1
        assert loaded.get_section(u("1926.502(k)")) is None
        assert u("1926.502(k)") not in loaded.node_uids(C, "Section")
        gone = u("1926.502(k)")
        assert all(gone not in (e.source, e.target) for t in EdgeType for e in loaded.edges(C, t))
        assert loaded.references_out(u("1926.501(b)(2)(i)")) == []
        assert loaded.children(u("1926.502")) == []
        assert loaded.stats(C).edges_by_type == {"HAS": len(HAS) - 2, "REFERS_TO": len(REFS) - 2}

    def test_deleting_edges_removes_only_those_edges(self, loaded):
        assert loaded.delete_edges([REFS[0], REFS[0]]) == 1
        assert loaded.references_out(REFS[0].source) == []
        assert set(loaded.edges(C, EdgeType.REFERS_TO)) == set(REFS[1:])
        assert loaded.delete_edges([REFS[0]]) == 0
        assert loaded.get_section(REFS[0].target) is not None

    def test_a_relation_is_deleted_by_its_name_only(self, loaded):
        ents = [Entity(corpus=C, name=n, section_ids=("1926.502(k)",)) for n in ("net", "employee")]
        loaded.upsert_entities(ents)
        rel = [
            Edge(
                type=EdgeType.RELATES,
                source=ents[0].uid,
                target=ents[1].uid,
                relation=r,
                section_ids=("1926.502(k)",),
            )
            for r in ("protect", "catch")
        ]
        loaded.upsert_edges(rel)
        assert loaded.delete_edges([rel[0]]) == 1
        assert [e.relation for e in loaded.edges(C, EdgeType.RELATES)] == ["catch"]
        assert loaded.node_uids(C, "Entity") == {e.uid for e in ents}
        assert loaded.delete_nodes([ents[0].uid]) == 1
        assert loaded.edges(C, EdgeType.RELATES) == [] and loaded.get_entity(ents[0].uid) is None


def _second_view(store: GraphStore) -> GraphStore:
    """Another store object on the same data (as another process would open it)."""
    if isinstance(store, EmbeddedGraphStore):
        return EmbeddedGraphStore(SqlStore(store.sql.url))
    from tests.integration.neo4j_env import neo4j_store

    return neo4j_store()


class TestAtomicWrites:
    """A build wraps its writes in `atomic()`: readers see before or after, never a mix."""

    @pytest.fixture
    def loaded(self, store):
        store.upsert_sections(TREE)
        store.upsert_edges(HAS + REFS)
        return store

    def test_writes_in_a_block_are_seen_inside_and_by_others_only_after_it(self, loaded):
        extra = Provision(
            corpus=C, id="1926.503", parent_id="1926 Subpart M", kind=ProvisionKind.SECTION, order=11
        )
        with loaded.atomic():
            loaded.delete_nodes([u("1926.502(k)(1)")])
            loaded.upsert_sections([extra])
            loaded.upsert_edges([Edge(type=EdgeType.HAS, source=u("1926 Subpart M"), target=extra.uid)])
            assert extra.uid in loaded.node_uids(C, "Section")
            other = _second_view(loaded)
            try:
                assert other.node_uids(C, "Section") == {p.uid for p in TREE}
            finally:
                other.close()
        other = _second_view(loaded)
        try:
            assert other.node_uids(C, "Section") == {p.uid for p in TREE} - {u("1926.502(k)(1)")} | {
                extra.uid
            }
            assert other.children(u("1926 Subpart M")) == [u("1926.501"), u("1926.502"), extra.uid]
        finally:
            other.close()

    def test_an_error_in_a_block_leaves_the_graph_as_it_was(self, loaded):
        before = (loaded.node_uids(C, "Section"), set(loaded.edges(C, EdgeType.REFERS_TO)))
        with pytest.raises(RuntimeError, match="killed"):
            with loaded.atomic():
                loaded.delete_nodes([u("1926.502")])
                loaded.delete_edges(REFS[:2])
                raise RuntimeError("killed half way")
        assert (loaded.node_uids(C, "Section"), set(loaded.edges(C, EdgeType.REFERS_TO))) == before
        assert loaded.get_section(u("1926.502")) is not None
        assert loaded.references_out(REFS[0].source) == [(REFS[0].target, REFS[0].text)]
