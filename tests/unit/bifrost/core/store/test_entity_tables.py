"""Entity, relation and triple embeddings round-trip through SQL, and upserts are idempotent, on SQLite
and on a real PostgreSQL (tests/integration/postgres_env.py)."""

import numpy as np
import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from bifrost.core.errors import StoreError
from bifrost.core.store import entity_tables as et
from bifrost.core.types import Entity, Triple
from tests.integration.postgres_env import SQL_KINDS, sql_url

C = "osha-1926"


@pytest.fixture(params=SQL_KINDS)
def engine(request, tmp_path):
    with sql_url(request.param, tmp_path) as url:
        eng = create_engine(url)
        et.create_entity_tables(eng)
        yield eng
        eng.dispose()


def unit_rows(n: int, d: int, seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


ENTITIES = [
    Entity(corpus=C, name="guardrail system", label="concept", section_ids=("1926.502(b)", "1926.501(b)(1)")),
    Entity(corpus=C, name="employee", label="concept", section_ids=("1926.501(b)(1)",)),
    Entity(corpus=C, name="OSHA", label="ORG"),
]
TRIPLES = [
    Triple(
        corpus=C,
        head="employee",
        relation="shall_be_protected_by",
        tail="guardrail system",
        section_ids=("1926.501(b)(1)",),
    )
]


def write_all(engine, ent: np.ndarray, tri: np.ndarray) -> None:
    with Session(engine) as s, s.begin():
        et.upsert_entities(s, C, ENTITIES, ent)
        et.upsert_relations(s, C, ["shall_be_protected_by"], ent[:1])
        et.upsert_triples(s, C, TRIPLES, tri)


def count(engine, model) -> int:
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(model))


def test_matrices_round_trip_exactly(engine):
    ent, tri = unit_rows(3, 8), unit_rows(1, 24, seed=1)
    write_all(engine, ent, tri)
    with Session(engine) as s:
        names, matrix = et.load_entity_matrix(s, C)
        triples, tmatrix = et.load_triple_matrix(s, C)
        rels, rmatrix = et.load_relation_matrix(s, C)
        entities = et.load_entities(s, C)
    order = [[e.name for e in ENTITIES].index(n) for n in names]
    assert names == sorted(e.name for e in ENTITIES)
    assert matrix.dtype == np.float32 and np.array_equal(matrix, ent[order])
    assert triples == TRIPLES and np.array_equal(tmatrix, tri)
    assert rels == ["shall_be_protected_by"] and np.array_equal(rmatrix, ent[:1])
    assert sorted(entities, key=lambda e: e.name) == sorted(ENTITIES, key=lambda e: e.name)


def test_upsert_is_idempotent_and_updates_in_place(engine):
    write_all(engine, unit_rows(3, 8), unit_rows(1, 24))
    write_all(engine, unit_rows(3, 8), unit_rows(1, 24))
    assert (
        count(engine, et.EntityEmbeddingRow),
        count(engine, et.RelationEmbeddingRow),
        count(engine, et.TripleEmbeddingRow),
    ) == (3, 1, 1)
    changed = [ENTITIES[0].model_copy(update={"section_ids": ("x",)})]
    new_vec = unit_rows(1, 8, seed=5)
    with Session(engine) as s, s.begin():
        et.upsert_entities(s, C, changed, new_vec)
    with Session(engine) as s:
        names, matrix = et.load_entity_matrix(s, C)
        loaded = {e.name: e for e in et.load_entities(s, C)}
    assert count(engine, et.EntityEmbeddingRow) == 3
    assert loaded["guardrail system"].section_ids == ("x",)
    assert np.array_equal(matrix[names.index("guardrail system")], new_vec[0])


def test_corpora_are_kept_apart_and_cleared_separately(engine):
    write_all(engine, unit_rows(3, 8), unit_rows(1, 24))
    other = [Entity(corpus="adgm", name="employee")]
    with Session(engine) as s, s.begin():
        et.upsert_entities(s, "adgm", other, unit_rows(1, 8))
        et.clear_entity_tables(s, C)
    with Session(engine) as s:
        assert et.load_entity_matrix(s, C)[0] == []
        assert et.load_entity_matrix(s, "adgm")[0] == ["employee"]
        assert et.load_triple_matrix(s, C)[0] == []


def test_empty_corpus_loads_empty_matrices(engine):
    with Session(engine) as s:
        names, m = et.load_entity_matrix(s, "nothing")
    assert names == [] and m.shape[0] == 0


def test_row_count_mismatch_is_rejected(engine):
    with Session(engine) as s, pytest.raises(ValueError):
        et.upsert_entities(s, C, ENTITIES, unit_rows(2, 8))


def test_wrong_corpus_is_rejected(engine):
    with Session(engine) as s, pytest.raises(ValueError):
        et.upsert_entities(s, "adgm", ENTITIES, unit_rows(3, 8))


def test_mixed_dimensions_are_a_store_error(engine):
    with Session(engine) as s, s.begin():
        et.upsert_entities(s, C, ENTITIES[:1], unit_rows(1, 8))
        et.upsert_entities(s, C, ENTITIES[1:2], unit_rows(1, 4))
    with Session(engine) as s, pytest.raises(StoreError):
        et.load_entity_matrix(s, C)


def test_export_npz(engine, tmp_path):
    ent, tri = unit_rows(3, 8), unit_rows(1, 24)
    write_all(engine, ent, tri)
    with Session(engine) as s:
        path = et.export_npz(s, C, tmp_path / "out" / "eng.npz")
    data = np.load(path)
    assert list(data["entity_names"]) == sorted(e.name for e in ENTITIES)
    assert data["entity_matrix"].shape == (3, 8) and data["triple_matrix"].shape == (1, 24)
    assert data["triples"].tolist() == [["employee", "shall_be_protected_by", "guardrail system"]]


@pytest.mark.parametrize("kind", SQL_KINDS)
def test_sql_store_creates_the_entity_tables(kind, tmp_path):
    from bifrost.core.store.sql_store import SqlStore

    with sql_url(kind, tmp_path) as url:
        store = SqlStore(url)
        with store.session() as s:
            et.upsert_entities(s, C, ENTITIES[:1], unit_rows(1, 8))
        with store.session() as s:
            assert et.load_entity_matrix(s, C)[0] == ["guardrail system"]
        store.dispose()
