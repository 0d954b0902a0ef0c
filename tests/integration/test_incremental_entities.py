"""An amended corpus's entity network, updated in place, equals a clean build: on every graph store.

Real parts: the mini part ingested as edition A, then edition B (a paragraph's text changed, a
section removed, so its provisions retire) through `Bifrost.ingest`; the navigator and the offline
entity network (spaCy, MiniLM) rebuilt on the same home; compared with a clean build of B in a
fresh embedded home. Neo4j runs against ``BIFROST_NEO4J_URI`` (skip locally, fail in CI).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.store import entity_tables as et
from bifrost.core.types import EdgeType
from bifrost.graph_builders.consistency import check_corpus
from tests.unit.mini_corpus import MINI

C = "incremental-entities-test"  # never a real corpus name: the test clears it on the shared Neo4j
CHANGED_FROM, CHANGED_TO = "guardrail", "warning line"


def edition_b(folder: Path) -> Path:
    """The mini part without § 1926.502 and with one word of § 1926.501 changed (same file name)."""
    sections = [s for s in json.loads(MINI.read_text()) if s["section"] != "1926.502"]
    changed = next(s for s in sections if s["section"] == "1926.501")
    assert CHANGED_FROM in changed["content"]
    changed["content"] = changed["content"].replace(CHANGED_FROM, CHANGED_TO, 1)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MINI.name
    path.write_text(json.dumps(sections))
    return path


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def settings(request: pytest.FixtureRequest, tmp_path: Path):
    """Settings of a fresh home on each store (the Neo4j corpus is cleared before and after)."""
    if request.param == "embedded":
        yield Settings(home=tmp_path / "home")
        return
    from tests.integration.neo4j_env import neo4j_store, neo4j_uri

    uri = neo4j_uri()
    store = neo4j_store()
    store.clear(C)
    yield Settings(home=tmp_path / "home", store="neo4j", neo4j_uri=uri)
    store.clear(C)
    store.close()


def build(bf: Bifrost, path: Path):
    report = bf.ingest(C, [path])
    assert report.files_ok, report.errors
    bf.build_navigator(C)
    return report, bf.build_entities(C, "offline")


def snapshot(bf: Bifrost) -> dict:
    """The entity network in SQL and in the facade's graph store."""
    with bf.sql.session() as s:
        names, ent = et.load_entity_matrix(s, C)
        triples, tri = et.load_triple_matrix(s, C)
        out = {
            "entities": et.load_entities(s, C),
            "triples": triples,
            "relations": et.load_relation_matrix(s, C)[0],
        }
    out |= {
        "nodes": bf.graph.node_uids(C, "Entity"),
        "mentioned_in": set(bf.graph.edges(C, EdgeType.MENTIONED_IN)),
        "relates": set(bf.graph.edges(C, EdgeType.RELATES)),
    }
    return out | {"_vectors": (ent, tri)}


@pytest.fixture
def updated(settings, tmp_path):
    """Edition A built, then edition B ingested and the entity network updated on the same home."""
    bf = Bifrost(settings)
    try:
        build(bf, MINI)
        ingest, report = build(bf, edition_b(tmp_path / "b"))
        yield bf, ingest, report
    finally:
        bf.close()


def test_only_changed_provisions_are_parsed_again(updated):
    _, ingest, report = updated
    assert ingest.removed and ingest.updated, ingest
    assert report.extracted == len(ingest.updated) + ingest.added
    assert report.from_journal == report.provisions_processed - report.extracted > 0


def test_the_updated_network_equals_a_clean_build_of_edition_b(updated, tmp_path):
    bf, _, _ = updated
    clean = Bifrost(Settings(home=tmp_path / "clean"))
    try:
        build(clean, edition_b(tmp_path / "b2"))
        want = snapshot(clean)
    finally:
        clean.close()
    got = snapshot(bf)
    for key in ("entities", "triples", "relations", "nodes", "mentioned_in", "relates"):
        assert got[key] == want[key], key
    # same names; vectors equal up to float noise of batching
    for a, b in zip(got["_vectors"], want["_vectors"]):
        assert a.shape == b.shape and np.allclose(a, b, atol=1e-5)
    assert not any("1926.502" in e.target for e in got["mentioned_in"])
    assert check_corpus(bf.sql, bf.graph, C).ok


def test_an_unchanged_rebuild_parses_embeds_and_writes_nothing(updated):
    bf, _, _ = updated
    before = snapshot(bf)
    report = bf.build_entities(C, "offline")
    assert (report.extracted, report.texts_embedded) == (
        0,
        0,
    ) and report.from_journal == report.provisions_processed
    assert report.changes.unchanged, report.changes
    after = snapshot(bf)
    assert {k: v for k, v in after.items() if k != "_vectors"} == {
        k: v for k, v in before.items() if k != "_vectors"
    }


def test_answers_quote_with_stored_vectors_of_the_current_editions_sentences(updated):
    from bifrost.core.embeddings import SentenceTransformerEmbedder
    from bifrost.retrieval.answer.sentence_vectors import StoredSentences, corpus_sentences
    from bifrost.core.sentences import sentences

    bf, _, _ = updated
    texts = corpus_sentences(bf.sql.provisions(C), sentences)
    embedder = bf.pipeline.answer_embedder(C)
    # exactly edition B's, in order
    assert isinstance(embedder, StoredSentences) and list(embedder.stored) == texts
    assert np.allclose(embedder.embed(texts[:8]), SentenceTransformerEmbedder().embed(texts[:8]), atol=1e-5)
