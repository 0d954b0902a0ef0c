"""Re-embedding a stored entity network keeps its names and counts and rewrites its vectors."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.store import entity_tables
from bifrost.graph_builders.entities.reembed import reembed_entity_network
from tests.unit.mini_corpus import MINI, build_corpus


class Shifted:
    """A fake embedder: a fixed random rotation of the real one's space (a 'different model')."""

    def __init__(self, inner):
        self.inner = inner
        self.rotation = np.linalg.qr(np.random.default_rng(0).normal(size=(inner.dim, inner.dim)))[0].astype(
            np.float32
        )

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts):
        return self.inner.embed(texts) @ self.rotation


def snapshot(bf: Bifrost, corpus: str):
    with bf.sql.session() as s:
        names, ent = entity_tables.load_entity_matrix(s, corpus)
        rels, rel = entity_tables.load_relation_matrix(s, corpus)
        triples, tri = entity_tables.load_triple_matrix(s, corpus)
        entities = entity_tables.load_entities(s, corpus)
    return names, ent, rels, rel, triples, tri, entities


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    bf = Bifrost(Settings(home=tmp_path_factory.mktemp("reembed") / "home"))
    build_corpus(bf, "mini", MINI)
    yield bf, snapshot(bf, "mini")
    bf.close()


def test_reembed_keeps_names_and_counts_and_changes_vectors(built):
    bf, _ = built
    names, ent, rels, _, triples, tri, entities = snapshot(bf, "mini")
    assert names and triples
    report = reembed_entity_network(bf.sql, "mini", Shifted(bf.embedder))
    names2, ent2, rels2, _, triples2, tri2, entities2 = snapshot(bf, "mini")
    assert (names2, rels2, triples2, entities2) == (names, rels, triples, entities)
    assert report["entities"] == len(names) and report["triples"] == len(triples)
    assert ent2.shape == ent.shape and tri2.shape == tri.shape
    assert not np.allclose(ent2, ent, atol=1e-3)
    d = ent.shape[1]
    row = {n: i for i, n in enumerate(names2)}
    t = triples2[0]
    assert np.allclose(tri2[0, :d], ent2[row[t.head]]) and np.allclose(tri2[0, 2 * d :], ent2[row[t.tail]])


def test_reembed_with_the_build_model_gives_back_the_build_vectors(built):
    bf, (names, ent, rels, rel, triples, tri, _) = built
    report = bf.reembed_entities("mini")  # after the shifted model of the test above, or not
    names2, ent2, rels2, rel2, triples2, tri2, _ = snapshot(bf, "mini")
    assert (names2, rels2, triples2) == (names, rels, triples)
    assert report.embedding_model == bf.settings.embedding_model
    assert (
        np.allclose(ent2, ent, atol=1e-5)
        and np.allclose(rel2, rel, atol=1e-5)
        and np.allclose(tri2, tri, atol=1e-5)
    )


def test_reembed_rejects_a_corpus_without_entities(built):
    bf, _ = built
    with pytest.raises(ValueError, match="no entity network"):
        reembed_entity_network(bf.sql, "absent", bf.embedder)
