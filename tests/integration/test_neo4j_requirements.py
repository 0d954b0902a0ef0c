"""Requirement records in Neo4j: `export neo4j` writes (:Section)-[:STATES]->(:Requirement) with its
(:Condition)s and (:Exception)s, as many as the SQL store holds; clearing the corpus removes them."""

from __future__ import annotations

import uuid

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from sqlalchemy import delete

from bifrost.core.store.requirement_tables import requirements
from bifrost.core.store.sql_models import MetaRow, RequirementRow
from tests.integration.neo4j_env import neo4j_uri
from tests.unit.mini_corpus import MINI, write_edge_corpus

pytestmark = pytest.mark.neo4j


def test_export_writes_requirements_with_conditions_and_exceptions(tmp_path):
    part = write_edge_corpus(tmp_path)
    uri = neo4j_uri()
    corpus = f"req-{uuid.uuid4().hex[:8]}"
    bf = Bifrost(Settings(home=tmp_path / "home", neo4j_uri=uri))
    try:
        assert bf.ingest(corpus, [part]).files_ok
        bf.build_navigator(corpus)
        stored = requirements(bf.sql, corpus)
        assert any(r.conditions for r in stored) and any(r.exceptions for r in stored)
        out = bf.export_neo4j(corpus)
        assert out.requirements == len(stored)
        neo = Bifrost(Settings(home=tmp_path / "home", store="neo4j", neo4j_uri=uri))
        try:
            with neo.graph.driver.session(database=neo.graph.database) as s:
                row = s.run(
                    "MATCH (:Section {corpus: $c})-[:STATES]->(r:Requirement) "
                    "OPTIONAL MATCH (r)-[:WHEN]->(x:Condition) OPTIONAL MATCH (r)-[:EXCEPT]->(e:Exception) "
                    "RETURN count(DISTINCT r) AS r, count(DISTINCT x) AS x, count(DISTINCT e) AS e",
                    c=corpus,
                ).single()
                assert row["r"] == len(stored)
                assert row["x"] == sum(len(r.conditions) for r in stored) and row["e"] == sum(
                    len(r.exceptions) for r in stored
                )
                edge = s.run(
                    "MATCH (:Section {corpus: $c, id: '1926.505(a)'})-[:STATES]->(:Requirement)-[:WHEN]->(x) "
                    "WHERE x.unit = 'foot' RETURN x.comparator AS cmp, x.value AS v, x.unit AS u",
                    c=corpus,
                ).single()
                assert (edge["cmp"], edge["v"], edge["u"]) == (">=", 6.0, "foot")
            neo.graph.clear(corpus)
            with neo.graph.driver.session(database=neo.graph.database) as s:
                left = s.run("MATCH (n {corpus: $c}) RETURN count(n) AS n", c=corpus).single()["n"]
            assert left == 0
        finally:
            neo.close()
    finally:
        bf.close()


def test_graph_stats_counts_requirements_and_the_sentences_without_one(tmp_path):
    bf = Bifrost(Settings(home=tmp_path / "home"))
    try:
        assert bf.ingest("mini", [MINI]).files_ok  # builds the navigator graph, and the records with it
        with bf.sql.session() as s:  # a home built before requirement records
            s.execute(delete(MetaRow).where(MetaRow.corpus == "mini", MetaRow.key == "requirements"))
            s.execute(delete(RequirementRow).where(RequirementRow.corpus == "mini"))
        assert any("no requirement records" in n for n in bf.stats("mini").notes)
        bf.build_navigator("mini")
        note = next(n for n in bf.stats("mini").notes if "requirement records" in n)
        assert "rule sentences without a requirement" in note
    finally:
        bf.close()
