"""An entity build after provisions changed re-extracts only changed or new provisions, embeds only
new names, and leaves SQL and the graph store equal to a clean build of the same provisions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from bifrost.core.graph.embedded import EmbeddedGraphStore
from bifrost.core.store import entity_tables as et
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import (
    Edge,
    EdgeType,
    Entity,
    ExtractedEntity,
    ExtractedTriple,
    Extraction,
    Provision,
    ProvisionKind,
    entity_uid,
    make_uid,
)
from bifrost.graph_builders.entities.build import build_entity_network
from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
from bifrost.graph_builders.entities.journaled import JournaledExtractor
from bifrost.graph_builders.entities.refiner import IncrementalEntityRefiner
from bifrost.graph_builders.entities.vector_cache import CachedEmbedder
from tests.unit.graph_builders.entities.test_refiner import FakeEmbedder, near

C = "osha-1926"
BASE = np.random.default_rng(7).standard_normal(64)
BASE /= np.linalg.norm(BASE)
# "step ladder" sits at cosine 0.97 of "stepladder": at tau 0.95 whichever comes first absorbs the other
FIXED = {"stepladder": BASE, "step ladder": near(BASE, 0.97, seed=3)}


def prov(pid: str, text: str, order: int) -> Provision:
    return Provision(corpus=C, id=pid, kind=ProvisionKind.PARAGRAPH, text=text, order=order)


class CountingExtractor:
    """Reads ``"a, b, c"`` as entities a, b, c and triples a -protects-> each other; counts every call."""

    name = "counting"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def extract_many(self, provisions: Iterable[Provision]) -> Iterator[Extraction]:
        for p in provisions:
            self.seen.append(p.id)
            names = [n.strip() for n in p.text.split(",") if n.strip()]
            yield Extraction(
                corpus=C,
                provision_id=p.id,
                entities=tuple(ExtractedEntity(name=n) for n in names),
                triples=tuple(ExtractedTriple(head=names[0], relation="protects", tail=n) for n in names[1:]),
            )


@dataclass
class Home:
    """One build's stores, opened afresh for each build as a new process would."""

    folder: Path

    def open(self) -> tuple[SqlStore, EmbeddedGraphStore, ExtractionJournal]:
        sql = SqlStore(f"sqlite:///{self.folder / 'b.db'}")
        return sql, EmbeddedGraphStore(sql), ExtractionJournal.at_path(self.folder / "journal.db")

    def build(self, provisions: list[Provision]) -> tuple[object, CountingExtractor, FakeEmbedder]:
        sql, graph, journal = self.open()
        # as the navigator does
        graph.delete_nodes(sorted(graph.node_uids(C, "Section") - {p.uid for p in provisions}))
        graph.upsert_sections(provisions)
        inner, model = CountingExtractor(), FakeEmbedder(FIXED)
        refiner = IncrementalEntityRefiner(CachedEmbedder(model, "fake", sql.session), tau=0.95, corpus=C)
        report = build_entity_network(
            provisions, JournaledExtractor(inner, journal, "v1"), refiner, graph, sql.session, C, batch_size=2
        )
        journal.close()
        sql.dispose()
        return report, inner, model

    def snapshot(self) -> dict:
        """Everything a clean build must equal: SQL rows and vectors, graph nodes and edges."""
        sql, graph, journal = self.open()
        with sql.session() as s:
            names, ent = et.load_entity_matrix(s, C)
            rels, rel = et.load_relation_matrix(s, C)
            triples, tri = et.load_triple_matrix(s, C)
            entities = et.load_entities(s, C)
        out = {
            "entities": entities,
            "triples": triples,
            "relations": rels,
            "vectors": (ent.tolist(), rel.tolist(), tri.tolist()),
            "nodes": graph.node_uids(C, "Entity"),
            "mentioned_in": set(graph.edges(C, EdgeType.MENTIONED_IN)),
            "relates": set(graph.edges(C, EdgeType.RELATES)),
        }
        journal.close()
        sql.dispose()
        return out


def embedded_texts(model: FakeEmbedder) -> list[str]:
    return [t for call in model.calls for t in call]


V1 = [
    prov("1926.1(a)", "stepladder, guardrail, employee", 1),
    prov("1926.1(b)", "step ladder, safety net", 2),
    prov("1926.1(c)", "employee, hard hat", 3),
    prov("1926.1(d)", "toeboard, guardrail", 4),
]
# (a) removed (the canonical "stepladder" goes), (c) changed, (e) new
V2 = [V1[1], prov("1926.1(c)", "employee, face shield", 3), V1[3], prov("1926.1(e)", "midrail, guardrail", 5)]


@pytest.fixture
def updated(tmp_path) -> tuple[Home, object, CountingExtractor, FakeEmbedder]:
    home = Home(tmp_path / "inc")
    home.folder.mkdir()
    home.build(V1)
    return (home, *home.build(V2))


def test_only_changed_and_new_provisions_are_extracted(updated):
    _, report, extractor, _ = updated
    assert sorted(extractor.seen) == ["1926.1(c)", "1926.1(e)"]
    assert (report.extracted, report.from_journal) == (2, 2)


def test_only_names_never_seen_are_embedded(updated):
    _, report, _, model = updated
    assert sorted(embedded_texts(model)) == ["face shield", "midrail"]
    assert report.texts_embedded == 2


def test_the_update_equals_a_clean_build_of_the_same_provisions(updated, tmp_path):
    home = updated[0]
    clean = Home(tmp_path / "clean")
    clean.folder.mkdir()
    clean.build(V2)
    assert home.snapshot() == clean.snapshot()


def test_an_entity_merged_into_a_removed_one_becomes_canonical_as_in_a_clean_build(updated):
    snap = updated[0].snapshot()
    names = {e.name: e.section_ids for e in snap["entities"]}
    assert "stepladder" not in names and names["step ladder"] == ("1926.1(b)",)
    assert names["guardrail"] == ("1926.1(d)", "1926.1(e)") and "hard hat" not in names
    assert f"{C}:entity:stepladder" not in snap["nodes"] and f"{C}:entity:hard hat" not in snap["nodes"]
    assert not any("1926.1(a)" in e.target or "hard hat" in e.source for e in snap["mentioned_in"])
    # stepladder -> guardrail, employee -> hard hat gone
    assert {(e.source, e.target) for e in snap["relates"]} == {
        (entity_uid(C, "step ladder"), entity_uid(C, "safety net")),
        (entity_uid(C, "employee"), entity_uid(C, "face shield")),
        (entity_uid(C, "toeboard"), entity_uid(C, "guardrail")),
        (entity_uid(C, "midrail"), entity_uid(C, "guardrail")),
    }


def test_a_merge_while_both_names_exist_keeps_the_first_as_canonical(tmp_path):
    home = Home(tmp_path)
    home.build(V1)
    names = {e.name: e.section_ids for e in home.snapshot()["entities"]}
    assert names["stepladder"] == ("1926.1(a)", "1926.1(b)") and "step ladder" not in names


def test_a_rebuild_of_unchanged_provisions_changes_nothing_and_calls_no_model(updated):
    home = updated[0]
    before = home.snapshot()
    report, extractor, model = home.build(V2)
    assert extractor.seen == [] and model.calls == []
    assert (report.extracted, report.from_journal, report.texts_embedded) == (0, 4, 0)
    assert report.changes.unchanged, report.changes
    assert home.snapshot() == before


def test_stale_entity_nodes_and_edges_in_the_graph_store_are_removed(tmp_path):
    home = Home(tmp_path)
    home.build(V1)
    sql, graph, journal = home.open()
    ghost = Entity(corpus=C, name="ghost", section_ids=("1926.1(a)",))
    graph.upsert_entities([ghost])  # left over by an older build that only upserted
    graph.upsert_edges(
        [
            Edge(type=EdgeType.MENTIONED_IN, source=ghost.uid, target=make_uid(C, "1926.1(a)")),
            Edge(
                type=EdgeType.MENTIONED_IN, source=entity_uid(C, "employee"), target=make_uid(C, "1926.1(d)")
            ),
            Edge(
                type=EdgeType.RELATES,
                source=entity_uid(C, "employee"),
                target=entity_uid(C, "guardrail"),
                relation="uses",
            ),
        ]
    )
    journal.close()
    sql.dispose()
    report, extractor, _ = home.build(V1)
    snap = home.snapshot()
    assert extractor.seen == [] and ghost.uid not in snap["nodes"]
    assert (report.changes.graph_nodes_deleted, report.changes.graph_edges_deleted) == (1, 2)
    assert len(snap["mentioned_in"]) == sum(len(e.section_ids) for e in snap["entities"])
    assert all(e.relation == "protects" for e in snap["relates"])


def test_an_entity_node_whose_mentions_drifted_is_rewritten(tmp_path):
    home = Home(tmp_path)
    home.build(V1)
    sql, graph, journal = home.open()
    graph.delete_edges(
        [Edge(type=EdgeType.MENTIONED_IN, source=entity_uid(C, "guardrail"), target=make_uid(C, "1926.1(d)"))]
    )
    journal.close()
    sql.dispose()
    report, _, _ = home.build(V1)
    assert report.changes.graph_edges_written == 1 and report.changes.graph_nodes_written == 1
    assert (
        Edge(type=EdgeType.MENTIONED_IN, source=entity_uid(C, "guardrail"), target=make_uid(C, "1926.1(d)"))
        in (home.snapshot()["mentioned_in"])
    )
