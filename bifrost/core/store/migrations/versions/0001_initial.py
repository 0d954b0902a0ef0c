"""Initial schema: the SQL store's tables as `create_all` made them before migrations.

Creates only the tables a database lacks, so a home made by `create_all` (no ``alembic_version``)
is adopted as it is, with any table it lacked added.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _create(name: str, *columns, indexes: Sequence[tuple[str, list[str], bool]] = ()) -> None:
    """Create a table and its indexes unless the table exists (an adopted pre-migration home)."""
    if sa.inspect(op.get_bind()).has_table(name):
        return
    op.create_table(name, *columns)
    for index, cols, unique in indexes:
        op.create_index(index, name, cols, unique=unique)


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), autoincrement=True, nullable=False)


def _corpus() -> sa.Column:
    return sa.Column("corpus", sa.String(length=64), nullable=False)


def _source_tables() -> None:
    """Corpora, source documents and review items."""
    _create(
        "corpora",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("jurisdiction", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    _create(
        "documents",
        _id(),
        _corpus(),
        sa.Column("name", sa.String(length=512), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("checksum", sa.String(length=64), nullable=False),
        sa.Column("edition", sa.String(length=64), nullable=True),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("ingested_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("corpus", "name"),
        indexes=[("ix_documents_corpus", ["corpus"], False)],
    )
    _create(
        "review_items",
        _id(),
        _corpus(),
        sa.Column("provision_id", sa.String(length=320), nullable=False),
        sa.Column("source_a", sa.String(length=512), nullable=False),
        sa.Column("source_b", sa.String(length=512), nullable=False),
        sa.Column("text_a", sa.Text(), nullable=False),
        sa.Column("text_b", sa.Text(), nullable=False),
        sa.Column("diff", sa.Text(), nullable=False),
        sa.Column("ratio", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        indexes=[("ix_review_items_corpus", ["corpus"], False)],
    )


def _provision_tables() -> None:
    """Provisions, their references, and per-corpus facts."""
    _create(
        "provisions",
        sa.Column("uid", sa.String(length=400), nullable=False),
        _corpus(),
        sa.Column("id", sa.String(length=320), nullable=False),
        sa.Column("parent_id", sa.String(length=320), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("heading", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("ord", sa.Integer(), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("pages", sa.JSON(), nullable=False),
        sa.Column("term", sa.String(length=256), nullable=True),
        sa.Column("source_note", sa.Text(), nullable=True),
        sa.Column("reserved", sa.Boolean(), nullable=False),
        sa.Column("document", sa.String(length=512), nullable=True),
        sa.Column("content_hash", sa.String(length=32), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("uid"),
        indexes=[("ix_provisions_corpus_id", ["corpus", "id"], True)],
    )
    _create(
        "references",
        _id(),
        _corpus(),
        sa.Column("source_id", sa.String(length=320), nullable=False),
        sa.Column("raw", sa.Text(), nullable=False),
        sa.Column("target_id", sa.String(length=320), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("extractor", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        indexes=[("ix_references_corpus_source", ["corpus", "source_id"], False)],
    )
    _create(
        "meta",
        _corpus(),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("corpus", "key"),
    )


def _graph_tables() -> None:
    """The embedded graph store's nodes and edges."""
    _create(
        "graph_nodes",
        sa.Column("uid", sa.String(length=600), nullable=False),
        _corpus(),
        sa.Column("label", sa.String(length=16), nullable=False),
        sa.Column("props", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("uid"),
        indexes=[("ix_graph_nodes_corpus", ["corpus"], False)],
    )
    _create(
        "graph_edges",
        _id(),
        _corpus(),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("source", sa.String(length=600), nullable=False),
        sa.Column("target", sa.String(length=600), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("props", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("type", "source", "target", "key"),
        indexes=[("ix_graph_edges_corpus", ["corpus"], False)],
    )


def _entity_tables() -> None:
    """The Entity Network's entities, relations and triples with their vectors."""
    _create(
        "eng_entities",
        _id(),
        _corpus(),
        sa.Column("name", sa.String(length=512), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=False),
        sa.Column("section_ids", sa.JSON(), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("corpus", "name"),
        indexes=[("ix_eng_entities_corpus", ["corpus"], False)],
    )
    _create(
        "eng_relations",
        _id(),
        _corpus(),
        sa.Column("name", sa.String(length=256), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("corpus", "name"),
        indexes=[("ix_eng_relations_corpus", ["corpus"], False)],
    )
    _create(
        "eng_triples",
        _id(),
        _corpus(),
        sa.Column("head", sa.String(length=512), nullable=False),
        sa.Column("relation", sa.String(length=256), nullable=False),
        sa.Column("tail", sa.String(length=512), nullable=False),
        sa.Column("section_ids", sa.JSON(), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("corpus", "head", "relation", "tail"),
        indexes=[("ix_eng_triples_corpus", ["corpus"], False)],
    )


def upgrade() -> None:
    _source_tables()
    _provision_tables()
    _graph_tables()
    _entity_tables()


def downgrade() -> None:
    for name in (
        "review_items",
        "references",
        "provisions",
        "meta",
        "graph_nodes",
        "graph_edges",
        "eng_triples",
        "eng_relations",
        "eng_entities",
        "documents",
        "corpora",
    ):
        op.drop_table(name)
