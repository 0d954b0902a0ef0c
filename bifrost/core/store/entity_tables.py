"""SQL tables for the Entity Network's entities, relations, triples and their embeddings.

Vectors are stored as float32 bytes plus their dimension, keyed by corpus. Upserts are
idempotent (re-running a build rewrites rows in place); loaders return numpy matrices for
retrieval, and `export_npz` writes them to one file.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sqlalchemy import JSON, Integer, LargeBinary, String, UniqueConstraint, bindparam, delete, or_, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Mapped, Session, mapped_column

from bifrost.core.errors import StoreError
from bifrost.core.store.sql_models import Base, MetaRow
from bifrost.core.types import Entity, Triple

_CHUNK = 500


class EntityEmbeddingRow(Base):
    """An Entity Network entity, its provisions and its embedding (d floats)."""

    __tablename__ = "eng_entities"
    __table_args__ = (UniqueConstraint("corpus", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(512))
    label: Mapped[str] = mapped_column(String(64), default="")
    section_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


class RelationEmbeddingRow(Base):
    """A relation type (snake_case) and the embedding of its phrase (d floats)."""

    __tablename__ = "eng_relations"
    __table_args__ = (UniqueConstraint("corpus", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(256))
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


class TripleEmbeddingRow(Base):
    """A triple, its provisions and its ``[h, r, t]`` embedding (3 x d floats)."""

    __tablename__ = "eng_triples"
    __table_args__ = (UniqueConstraint("corpus", "head", "relation", "tail"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64), index=True)
    head: Mapped[str] = mapped_column(String(512))
    relation: Mapped[str] = mapped_column(String(256))
    tail: Mapped[str] = mapped_column(String(512))
    section_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


class TextVectorRow(Base):
    """A text's embedding under one embedding model: the refiner's cache of entity names and relation
    phrases, so that an incremental entity build embeds only the names it has never seen."""

    __tablename__ = "eng_text_vectors"
    __table_args__ = (UniqueConstraint("model", "text"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    model: Mapped[str] = mapped_column(String(512), index=True)
    text: Mapped[str] = mapped_column(String(1024))
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


ENTITY_TABLES = (
    EntityEmbeddingRow.__table__,
    RelationEmbeddingRow.__table__,
    TripleEmbeddingRow.__table__,
    TextVectorRow.__table__,
)


def create_entity_tables(engine: Engine) -> None:
    """Create the entity tables and ``meta`` if missing on a bare engine (tests); a `SqlStore` gets them
    from its migrations."""
    Base.metadata.create_all(engine, tables=[*ENTITY_TABLES, MetaRow.__table__])


def to_blob(vector: np.ndarray) -> bytes:
    """A 1-d vector as little-endian float32 bytes."""
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def from_blobs(blobs: Sequence[bytes], dims: Sequence[int], what: str) -> np.ndarray:
    """Rows of float32 bytes as an (n, d) matrix; all rows must share one dimension."""
    if not blobs:
        return np.zeros((0, 0), dtype=np.float32)
    d = set(dims)
    if len(d) != 1:
        raise StoreError(
            f"{what}: rows have mixed embedding dimensions {sorted(d)}; rebuild the entity network"
        )
    dim = d.pop()
    out = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim)
    return out.astype(np.float32)


def _check(matrix: np.ndarray, n: int, what: str) -> None:
    if matrix.ndim != 2 or matrix.shape[0] != n:
        raise ValueError(f"{what}: expected a matrix with {n} rows, got shape {matrix.shape}")


def _upsert(session: Session, model: type[Base], keys: tuple[str, ...], rows: list[dict]) -> int:
    """Insert rows, or update in place those whose key columns exist (portable across dialects)."""
    table = model.__table__
    key_cols = [table.c[k] for k in keys]
    update = table.update().where(table.c.id == bindparam("_row_id"))
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start : start + _CHUNK]
        by_key = {tuple(r[k] for k in keys): r for r in chunk}  # last row wins within a chunk
        probe = {k[1] for k in by_key}  # keys[0] is corpus; narrow on the next key column
        existing = {
            tuple(row[:-1]): row[-1]
            for row in session.execute(
                select(*key_cols, table.c.id).where(
                    table.c.corpus == chunk[0]["corpus"], key_cols[1].in_(probe)
                )
            )
        }
        inserts = [r for k, r in by_key.items() if k not in existing]
        updates = [{**r, "_row_id": existing[k]} for k, r in by_key.items() if k in existing]
        if inserts:
            session.execute(table.insert(), inserts)
        if updates:
            session.execute(update, updates)
    return len(rows)


def _same_corpus(rows: Sequence[Entity] | Sequence[Triple], corpus: str) -> None:
    bad = next((r for r in rows if r.corpus != corpus), None)
    if bad is not None:
        raise ValueError(f"record of corpus {bad.corpus!r} given for corpus {corpus!r}")


def upsert_entities(session: Session, corpus: str, entities: Sequence[Entity], matrix: np.ndarray) -> int:
    """Write entities and their embeddings (row i for entity i); section_ids are replaced."""
    _check(matrix, len(entities), "entity embeddings")
    _same_corpus(entities, corpus)
    rows = [
        {
            "corpus": corpus,
            "name": e.name,
            "label": e.label,
            "section_ids": list(e.section_ids),
            "dim": int(matrix.shape[1]),
            "vector": to_blob(v),
        }
        for e, v in zip(entities, matrix)
    ]
    new_generation(session, corpus)
    return _upsert(session, EntityEmbeddingRow, ("corpus", "name"), rows)


def upsert_relations(session: Session, corpus: str, relations: Sequence[str], matrix: np.ndarray) -> int:
    """Write relation types and the embeddings of their phrases."""
    _check(matrix, len(relations), "relation embeddings")
    rows = [
        {"corpus": corpus, "name": r, "dim": int(matrix.shape[1]), "vector": to_blob(v)}
        for r, v in zip(relations, matrix)
    ]
    new_generation(session, corpus)
    return _upsert(session, RelationEmbeddingRow, ("corpus", "name"), rows)


def upsert_triples(session: Session, corpus: str, triples: Sequence[Triple], matrix: np.ndarray) -> int:
    """Write triples and their ``[h, r, t]`` embeddings (3 x d); section_ids are replaced."""
    _check(matrix, len(triples), "triple embeddings")
    _same_corpus(triples, corpus)
    rows = [
        {
            "corpus": corpus,
            "head": t.head,
            "relation": t.relation,
            "tail": t.tail,
            "section_ids": list(t.section_ids),
            "dim": int(matrix.shape[1]),
            "vector": to_blob(v),
        }
        for t, v in zip(triples, matrix)
    ]
    new_generation(session, corpus)
    return _upsert(session, TripleEmbeddingRow, ("corpus", "head", "relation", "tail"), rows)


def delete_entities(session: Session, corpus: str, names: Sequence[str]) -> None:
    """Delete the entity rows of these names."""
    m = EntityEmbeddingRow
    for start in range(0, len(names), _CHUNK):
        session.execute(delete(m).where(m.corpus == corpus, m.name.in_(names[start : start + _CHUNK])))
    if names:
        new_generation(session, corpus)


def delete_relations(session: Session, corpus: str, names: Sequence[str]) -> None:
    """Delete the relation-type rows of these names."""
    m = RelationEmbeddingRow
    for start in range(0, len(names), _CHUNK):
        session.execute(delete(m).where(m.corpus == corpus, m.name.in_(names[start : start + _CHUNK])))
    if names:
        new_generation(session, corpus)


def delete_triples(session: Session, corpus: str, keys: Sequence[tuple[str, str, str]]) -> None:
    """Delete the triple rows of these ``(head, relation, tail)`` keys."""
    m = TripleEmbeddingRow
    for head, relation, tail in keys:
        session.execute(
            delete(m).where(m.corpus == corpus, m.head == head, m.relation == relation, m.tail == tail)
        )
    if keys:
        new_generation(session, corpus)


def load_text_vectors(session: Session, model: str) -> dict[str, np.ndarray]:
    """Every cached ``text -> vector`` of one embedding model."""
    rows = session.execute(
        select(TextVectorRow.text, TextVectorRow.dim, TextVectorRow.vector).where(
            TextVectorRow.model == model
        )
    ).all()
    return {t: np.frombuffer(v, dtype="<f4").astype(np.float32) for t, d, v in rows if len(v) == 4 * d}


def add_text_vectors(session: Session, model: str, vectors: dict[str, np.ndarray]) -> int:
    """Cache new ``text -> vector`` pairs of one model (texts already cached are rewritten)."""
    rows = [
        {"model": model, "text": t, "dim": int(v.shape[0]), "vector": to_blob(v)} for t, v in vectors.items()
    ]
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start : start + _CHUNK]
        session.execute(
            delete(TextVectorRow).where(
                TextVectorRow.model == model, TextVectorRow.text.in_([r["text"] for r in chunk])
            )
        )
        session.execute(TextVectorRow.__table__.insert(), chunk)
    return len(rows)


def clear_text_vectors(session: Session, model: str | None = None) -> None:
    """Forget the cached vectors of one model (all models when None), e.g. after its weights changed."""
    stmt = delete(TextVectorRow)
    session.execute(stmt if model is None else stmt.where(TextVectorRow.model == model))


def clear_entity_tables(session: Session, corpus: str) -> None:
    """Delete every entity, relation and triple row of a corpus (before a full rebuild)."""
    for model in (EntityEmbeddingRow, RelationEmbeddingRow, TripleEmbeddingRow):
        session.execute(delete(model).where(model.corpus == corpus))
    new_generation(session, corpus)


GENERATION_KEY = "entity_network_generation"


def new_generation(session: Session, corpus: str) -> str:
    """Mark the entity network of a corpus as changed (in the writer's transaction): files derived
    from it (the memory-mapped matrices of `bifrost.retrieval.channels.entity_index`) are keyed by this id."""
    gen = uuid.uuid4().hex
    session.merge(MetaRow(corpus=corpus, key=GENERATION_KEY, value={"id": gen}))
    return gen


def generation(session: Session, corpus: str) -> str | None:
    """The id of the last write to a corpus's entity network, or None (a home written before ids existed)."""
    row = session.get(MetaRow, (corpus, GENERATION_KEY))
    return (
        str(row.value["id"])
        if row is not None and isinstance(row.value, dict) and "id" in row.value
        else None
    )


def load_entities(session: Session, corpus: str) -> list[Entity]:
    """Entities of a corpus, ordered by name."""
    rows = session.execute(
        select(EntityEmbeddingRow.name, EntityEmbeddingRow.label, EntityEmbeddingRow.section_ids)
        .where(EntityEmbeddingRow.corpus == corpus)
        .order_by(EntityEmbeddingRow.name)
    )
    return [Entity(corpus=corpus, name=n, label=lab, section_ids=tuple(s or ())) for n, lab, s in rows]


def load_entity_matrix(session: Session, corpus: str) -> tuple[list[str], np.ndarray]:
    """Entity names (ordered by name) and their embeddings, shape (n, d)."""
    rows = session.execute(
        select(EntityEmbeddingRow.name, EntityEmbeddingRow.dim, EntityEmbeddingRow.vector)
        .where(EntityEmbeddingRow.corpus == corpus)
        .order_by(EntityEmbeddingRow.name)
    ).all()
    return [r[0] for r in rows], from_blobs(
        [r[2] for r in rows], [r[1] for r in rows], f"entities of {corpus}"
    )


def load_relation_matrix(session: Session, corpus: str) -> tuple[list[str], np.ndarray]:
    """Relation types (ordered by name) and their embeddings, shape (n, d)."""
    rows = session.execute(
        select(RelationEmbeddingRow.name, RelationEmbeddingRow.dim, RelationEmbeddingRow.vector)
        .where(RelationEmbeddingRow.corpus == corpus)
        .order_by(RelationEmbeddingRow.name)
    ).all()
    return [r[0] for r in rows], from_blobs(
        [r[2] for r in rows], [r[1] for r in rows], f"relations of {corpus}"
    )


def load_triple_matrix(session: Session, corpus: str) -> tuple[list[Triple], np.ndarray]:
    """Triples (ordered by head, relation, tail) and their embeddings, shape (n, 3d)."""
    m = TripleEmbeddingRow
    rows = session.execute(
        select(m.head, m.relation, m.tail, m.section_ids, m.dim, m.vector)
        .where(m.corpus == corpus)
        .order_by(m.head, m.relation, m.tail)
    ).all()
    triples = [
        Triple(corpus=corpus, head=h, relation=r, tail=t, section_ids=tuple(s or ()))
        for h, r, t, s, _, _ in rows
    ]
    return triples, from_blobs([r[5] for r in rows], [r[4] for r in rows], f"triples of {corpus}")


def export_npz(session: Session, corpus: str, path: str | Path) -> Path:
    """Write entity, relation and triple names and matrices of a corpus to one ``.npz`` file."""
    names, ent = load_entity_matrix(session, corpus)
    rels, rel = load_relation_matrix(session, corpus)
    triples, tri = load_triple_matrix(session, corpus)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        entity_names=np.array(names, dtype=str),
        entity_matrix=ent,
        relation_names=np.array(rels, dtype=str),
        relation_matrix=rel,
        triples=np.array([[t.head, t.relation, t.tail] for t in triples], dtype=str).reshape(-1, 3),
        triple_matrix=tri,
    )
    return out


def find_entity(session: Session, corpus: str, name: str) -> Entity | None:
    """The entity stored under its normalized ``name``, or None."""
    row = session.scalar(
        select(EntityEmbeddingRow).where(EntityEmbeddingRow.corpus == corpus, EntityEmbeddingRow.name == name)
    )
    if row is None:
        return None
    return Entity(
        corpus=corpus, name=row.name, label=row.label or "", section_ids=tuple(row.section_ids or ())
    )


def relations_of(session: Session, corpus: str, name: str) -> list[Triple]:
    """Every stored triple with ``name`` as head or tail, sorted by head, relation, tail."""
    t = TripleEmbeddingRow
    rows = session.execute(
        select(t.head, t.relation, t.tail, t.section_ids)
        .where(t.corpus == corpus, or_(t.head == name, t.tail == name))
        .order_by(t.head, t.relation, t.tail)
    ).all()
    return [
        Triple(corpus=corpus, head=h, relation=r, tail=tl, section_ids=tuple(ids or ()))
        for h, r, tl, ids in rows
    ]
