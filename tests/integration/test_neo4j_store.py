"""The Neo4j store on a real server: idempotent writes, schema, relation names, search, errors.

The GraphStore contract it shares with the embedded store runs from tests/contract/.

Needs ``BIFROST_NEO4J_URI`` (see tests/integration/neo4j_env.py); the corpora used here are
cleared before and after each test, nothing else in the database is touched.
"""

from __future__ import annotations

import socket

import pytest

from bifrost.core.errors import StoreError
from bifrost.core.graph.base import GraphStore
from bifrost.core.graph.neo4j_store import Neo4jGraphStore
from bifrost.core.relations import RelationNameError, check_relation
from bifrost.core.types import Edge, EdgeType, Entity
from tests.contract.sample_graph import HAS, REFS, TREE, C, u
from tests.integration.neo4j_env import neo4j_store

pytestmark = pytest.mark.neo4j

CORPORA = (C, "other-corpus")

ENTS = [
    Entity(corpus=C, name="guardrail system", label="equipment", section_ids=("1926.502(k)",)),
    Entity(corpus=C, name="employee", label="person", section_ids=("1926.501(b)(2)(i)",)),
]
MENTIONS = [Edge(type=EdgeType.MENTIONED_IN, source=e.uid, target=u(e.section_ids[0])) for e in ENTS]
RELATES = [
    Edge(
        type=EdgeType.RELATES,
        source=ENTS[0].uid,
        target=ENTS[1].uid,
        relation="protects",
        section_ids=("1926.502(k)",),
    )
]


def _clean(store: Neo4jGraphStore) -> None:
    for corpus in CORPORA:
        store.clear(corpus)


@pytest.fixture
def neo4j():
    st = neo4j_store(batch_size=3)  # small batches: several UNWIND transactions per write
    _clean(st)
    yield st
    _clean(st)
    st.close()


def test_it_is_a_graph_store(neo4j):
    assert isinstance(neo4j, GraphStore)


def test_a_second_write_leaves_node_and_edge_counts_unchanged(neo4j):
    for _ in range(2):
        neo4j.upsert_sections(TREE)
        neo4j.upsert_entities(ENTS)
        neo4j.upsert_edges(HAS + REFS + MENTIONS + RELATES)
    first = neo4j.counts(C)
    assert first == (len(TREE) + len(ENTS), len(HAS) + len(REFS) + len(MENTIONS) + len(RELATES))
    assert neo4j.upsert_edges(HAS + REFS + MENTIONS + RELATES) == 0  # nothing new, nothing changed
    assert neo4j.counts(C) == first


def test_a_changed_edge_property_counts_as_written(neo4j):
    neo4j.upsert_sections(TREE)
    neo4j.upsert_edges(REFS)
    changed = REFS[0].model_copy(update={"text": "another wording"})
    assert neo4j.upsert_edges([changed]) == 1
    assert neo4j.references_out(REFS[0].source) == [(REFS[0].target, "another wording")]


def test_relations_differing_by_name_are_separate_edges(neo4j):
    neo4j.upsert_sections(TREE)
    neo4j.upsert_entities(ENTS)
    other = RELATES[0].model_copy(update={"relation": "is_installed_for"})
    assert neo4j.upsert_edges(RELATES + [other]) == 2
    assert neo4j.stats(C).relations == 2


def test_schema_setup_is_idempotent(neo4j):
    neo4j.ensure_schema()
    again = neo4j_store()
    again.ensure_schema()  # a second store on the same database: IF NOT EXISTS everywhere
    with neo4j.driver.session(database=neo4j.database) as s:
        names = {r["name"] for r in s.run("SHOW INDEXES YIELD name")}
        n_constraints = len(list(s.run("SHOW CONSTRAINTS")))
    assert {
        "bifrost_section_uid",
        "bifrost_entity_uid",
        "bifrost_section_corpus_id",
        "bifrost_section_text",
        "bifrost_entity_embedding",
        "bifrost_triple_embedding",
    } <= names
    again._schema_ready = False
    again.ensure_schema()
    with neo4j.driver.session(database=neo4j.database) as s:
        assert len(list(s.run("SHOW CONSTRAINTS"))) == n_constraints
    again.close()


def test_a_vector_index_of_another_dimension_is_reported(neo4j):
    neo4j.ensure_schema()
    with pytest.raises(StoreError) as err:
        neo4j_store(embedding_dim=8).ensure_schema()
    assert "bifrost_entity_embedding" in str(err.value) and "dimension" in str(err.value)


@pytest.mark.parametrize(
    "bad",
    [
        "Protects",
        "protects-from",
        "protects from",
        "x]->(y) DETACH DELETE y //",
        "_lead",
        "trailing_",
        "dóuble",
        "",
        None,
        "a" * 65,
    ],
)
def test_relations_that_are_not_snake_case_are_rejected_before_any_write(neo4j, bad):
    neo4j.upsert_sections(TREE)
    neo4j.upsert_entities(ENTS)
    edge = Edge(type=EdgeType.RELATES, source=ENTS[0].uid, target=ENTS[1].uid, relation=bad)
    with pytest.raises(RelationNameError) as err:
        neo4j.upsert_edges(MENTIONS + [edge])
    assert repr(bad) in str(err.value)
    assert neo4j.stats(C).edges_by_type == {}  # the valid rows of the call were not written either


@pytest.mark.parametrize("good", ["protects", "is_installed_for", "requires_2", "x"])
def test_snake_case_relations_pass_the_check(good):
    assert check_relation(good) == good


def test_entity_and_triple_embeddings_are_searchable(neo4j):
    neo4j.upsert_sections(TREE)
    neo4j.upsert_entities(ENTS)
    neo4j.upsert_edges(RELATES)
    d = neo4j.embedding_dim
    assert (
        neo4j.set_entity_embeddings(
            [(ENTS[0].uid, [1.0] + [0.0] * (d - 1)), (ENTS[1].uid, [0.0, 1.0] + [0.0] * (d - 2))]
        )
        == 2
    )
    assert neo4j.set_triple_embeddings([(RELATES[0], [0.5] * neo4j.triple_dim)]) == 1
    neo4j.upsert_entities(ENTS)  # rewriting an entity keeps its embedding
    with neo4j.driver.session(database=neo4j.database) as s:
        s.run("CALL db.awaitIndexes(60)").consume()
    assert neo4j.similar_entities([1.0, 0.1] + [0.0] * (d - 2), top_k=1, corpus=C)[0][0] == ENTS[0].uid
    head, rel, tail, _ = neo4j.similar_triples([0.5] * neo4j.triple_dim, top_k=1, corpus=C)[0]
    assert (head, rel, tail) == (ENTS[0].uid, "protects", ENTS[1].uid)


def test_full_text_search_finds_sections_by_text_and_heading(neo4j):
    neo4j.upsert_sections(TREE)
    with neo4j.driver.session(database=neo4j.database) as s:
        s.run("CALL db.awaitIndexes(60)").consume()
    hits = neo4j.search_sections('"text of 1926.502(k)(1)"', top_k=3, corpus=C)
    assert hits and hits[0][0] == u("1926.502(k)(1)")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_closed_port_raises_store_error_naming_the_uri():
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    store = Neo4jGraphStore(uri, connection_timeout=2)  # no I/O yet
    with pytest.raises(StoreError) as err:
        store.get_section(u("1926.502"))
    msg = str(err.value)
    assert uri in msg and "cannot reach Neo4j" in msg and "\n" not in msg
