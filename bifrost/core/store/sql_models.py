"""SQLAlchemy tables of the SQL store: corpora, documents, provisions, references, review items.

The embedded graph store persists its nodes and edges here too (``graph_nodes``,
``graph_edges``), so one SQLite file (or any SQLAlchemy URL) holds all state.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import JSON, Boolean, DateTime, Float, Integer, String, Text, UniqueConstraint, Index
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base shared by every table of the SQL store."""


class CorpusRow(Base):
    __tablename__ = "corpora"
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    jurisdiction: Mapped[str] = mapped_column(String(32))  # the pack that reads the corpus
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class DocumentRow(Base):
    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("corpus", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(512))
    format: Mapped[str] = mapped_column(String(16))
    checksum: Mapped[str] = mapped_column(String(64))
    edition: Mapped[str | None] = mapped_column(String(64), nullable=True)
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    ingested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ProvisionRow(Base):
    __tablename__ = "provisions"
    __table_args__ = (Index("ix_provisions_corpus_id", "corpus", "id", unique=True),)
    uid: Mapped[str] = mapped_column(String(400), primary_key=True)
    corpus: Mapped[str] = mapped_column(String(64))
    id: Mapped[str] = mapped_column(String(320))
    parent_id: Mapped[str | None] = mapped_column(String(320), nullable=True)
    kind: Mapped[str] = mapped_column(String(16))
    heading: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text, default="")
    level: Mapped[int] = mapped_column(Integer, default=0)
    ord: Mapped[int] = mapped_column(Integer, default=0)
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    pages: Mapped[list[int]] = mapped_column(JSON, default=list)
    term: Mapped[str | None] = mapped_column(String(256), nullable=True)
    source_note: Mapped[str | None] = mapped_column(Text, nullable=True)
    reserved: Mapped[bool] = mapped_column(Boolean, default=False)
    document: Mapped[str | None] = mapped_column(String(512), nullable=True)
    content_hash: Mapped[str] = mapped_column(String(32))
    verified: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    valid_from: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class EditionRow(Base):
    """One recorded state of a corpus (see `bifrost.core.types.Edition`)."""

    __tablename__ = "editions"
    corpus: Mapped[str] = mapped_column(String(64), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    date: Mapped[str | None] = mapped_column(String(10), nullable=True)
    sources: Mapped[list[str]] = mapped_column(JSON, default=list)
    content_hash: Mapped[str] = mapped_column(String(64), default="")
    added: Mapped[int] = mapped_column(Integer, default=0)
    changed: Mapped[int] = mapped_column(Integer, default=0)
    removed: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ProvisionVersionRow(Base):
    """A provision as it was before an edition changed or retired it (valid_from <= e < valid_to)."""

    __tablename__ = "provision_versions"
    __table_args__ = (Index("ix_provision_versions_corpus_id", "corpus", "provision_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64))
    provision_id: Mapped[str] = mapped_column(String(320))
    valid_from: Mapped[int] = mapped_column(Integer)
    valid_to: Mapped[int] = mapped_column(Integer)
    change: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict] = mapped_column(JSON)


class ReferenceRow(Base):
    __tablename__ = "references"
    __table_args__ = (Index("ix_references_corpus_source", "corpus", "source_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64))
    source_id: Mapped[str] = mapped_column(String(320))
    raw: Mapped[str] = mapped_column(Text)
    target_id: Mapped[str | None] = mapped_column(String(320), nullable=True)
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    extractor: Mapped[str] = mapped_column(String(32), default="rules")
    valid_from: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    valid_to: Mapped[int | None] = mapped_column(Integer, nullable=True)


class ReviewItemRow(Base):
    __tablename__ = "review_items"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64), index=True)
    provision_id: Mapped[str] = mapped_column(String(320))
    source_a: Mapped[str] = mapped_column(String(512))
    source_b: Mapped[str] = mapped_column(String(512))
    text_a: Mapped[str] = mapped_column(Text)
    text_b: Mapped[str] = mapped_column(Text)
    diff: Mapped[str] = mapped_column(Text)
    ratio: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), default="open")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GraphNodeRow(Base):
    """A node of the embedded graph store (Section or Entity) with its properties."""

    __tablename__ = "graph_nodes"
    uid: Mapped[str] = mapped_column(String(600), primary_key=True)
    corpus: Mapped[str] = mapped_column(String(64), index=True)
    label: Mapped[str] = mapped_column(String(16))
    props: Mapped[dict] = mapped_column(JSON)


class GraphEdgeRow(Base):
    """An edge of the embedded graph store; ``key`` distinguishes RELATES edges by relation."""

    __tablename__ = "graph_edges"
    __table_args__ = (UniqueConstraint("type", "source", "target", "key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64), index=True)
    type: Mapped[str] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(String(600))
    target: Mapped[str] = mapped_column(String(600))
    key: Mapped[str] = mapped_column(String(200), default="")
    props: Mapped[dict] = mapped_column(JSON)


class MetaRow(Base):
    """Small key/value facts per corpus (dangling reference counts, build settings)."""

    __tablename__ = "meta"
    corpus: Mapped[str] = mapped_column(String(64), primary_key=True)
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[dict] = mapped_column(JSON)


class PrecedentRow(Base):
    """An answered question of a corpus (see `bifrost.core.precedent_types.Precedent`); ``cites`` holds
    each citation as written with what it resolved to, ``content_hash`` what an import compares."""

    __tablename__ = "precedents"
    corpus: Mapped[str] = mapped_column(String(64), primary_key=True)
    id: Mapped[str] = mapped_column(String(320), primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    question: Mapped[str] = mapped_column(Text, default="")
    date: Mapped[str | None] = mapped_column(String(32), nullable=True)
    url: Mapped[str | None] = mapped_column(Text, nullable=True)
    issuer: Mapped[str] = mapped_column(String(256), default="")
    source: Mapped[str] = mapped_column(String(512), default="")
    cites: Mapped[list[dict]] = mapped_column(JSON, default=list)
    content_hash: Mapped[str] = mapped_column(String(64))
    imported_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AnswerReviewRow(Base):
    """A reviewer's verdict on an answer (see `bifrost.core.precedent_types.AnswerReview`)."""

    __tablename__ = "answer_reviews"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    corpus: Mapped[str] = mapped_column(String(64), index=True)
    question: Mapped[str] = mapped_column(Text)
    edition: Mapped[int] = mapped_column(Integer)
    reviewer: Mapped[str] = mapped_column(String(256))
    team: Mapped[str] = mapped_column(String(256), default="")
    cited: Mapped[list[dict]] = mapped_column(JSON, default=list)
    added: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class UserRow(Base):
    """Someone a served home knows: a role and the corpora they may read (``["*"]``: all)."""

    __tablename__ = "users"
    name: Mapped[str] = mapped_column(String(128), primary_key=True)
    role: Mapped[str] = mapped_column(String(16))
    corpora: Mapped[list[str]] = mapped_column(JSON, default=list)
    rate_limit: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TokenRow(Base):
    """A user's token: only an argon2 hash of its secret is kept; revoked or expired tokens stay listed."""

    __tablename__ = "tokens"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user: Mapped[str] = mapped_column(String(128), index=True)
    secret_hash: Mapped[str] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class AnswerRecordRow(Base):
    """An answer as given (see `bifrost.core.access.AnswerRecord`)."""

    __tablename__ = "answer_records"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    user: Mapped[str] = mapped_column(String(128), index=True)
    channel: Mapped[str] = mapped_column(String(16))
    corpus: Mapped[str] = mapped_column(String(256), index=True)
    editions: Mapped[dict] = mapped_column(JSON, default=dict)
    as_of: Mapped[str | None] = mapped_column(String(32), nullable=True)
    question: Mapped[str] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(String(32))
    verdict: Mapped[str | None] = mapped_column(String(32), nullable=True)
    citations: Mapped[list[str]] = mapped_column(JSON, default=list)
    code_version: Mapped[str] = mapped_column(String(128), default="")
    models: Mapped[dict] = mapped_column(JSON, default=dict)
    answer: Mapped[dict] = mapped_column(JSON, default=dict)


class RequirementRow(Base):
    """A rule sentence read (see `bifrost.core.requirement_types.Requirement`), the whole record in
    ``data``."""

    __tablename__ = "requirements"
    corpus: Mapped[str] = mapped_column(String(64), primary_key=True)
    provision_id: Mapped[str] = mapped_column(String(320), primary_key=True)
    sentence: Mapped[int] = mapped_column(Integer, primary_key=True)
    force: Mapped[str] = mapped_column(String(24))
    data: Mapped[dict] = mapped_column(JSON)
