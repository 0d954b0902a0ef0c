"""A progress journal of finished extractions, so a killed entity build resumes where it stopped.

Keyed by (corpus, provision id, provision content hash, extractor version): a changed provision
text or a new prompt/model version is extracted again; an unchanged one is read back.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import Column, DateTime, MetaData, String, Table, Text, create_engine, func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool

from bifrost.core.errors import StoreError
from bifrost.core.store.engine import sql_error_line
from bifrost.core.types import Extraction, Provision

_IN_CHUNK = 500
"""Provision ids per `IN (...)` query of `ExtractionJournal.find` (SQLite's bound-parameter limit is
higher)."""

_metadata = MetaData()
journal_table = Table(
    "llm_extraction_journal",
    _metadata,
    Column("corpus", String(128), primary_key=True),
    Column("provision_id", String(512), primary_key=True),
    Column("content_hash", String(64), primary_key=True),
    Column("extractor_version", String(256), primary_key=True),
    Column("extraction", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)


class ExtractionJournal:
    """Stores each finished `Extraction` as JSON; thread-safe, idempotent writes."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._engine: Engine | None = None
        self._lock = threading.RLock()

    @classmethod
    def at_path(cls, path: str | Path) -> ExtractionJournal:
        """A journal in a SQLite file (its folder is created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{path}")

    @property
    def engine(self) -> Engine:
        with self._lock:
            if self._engine is None:
                try:
                    if self.url in ("sqlite://", "sqlite:///:memory:"):
                        engine = create_engine(
                            self.url, poolclass=StaticPool, connect_args={"check_same_thread": False}
                        )
                    else:
                        engine = create_engine(self.url)
                    _metadata.create_all(engine)
                except SQLAlchemyError as e:
                    raise StoreError(f"extraction journal: {sql_error_line(self.url, e)}") from e
                self._engine = engine
            return self._engine

    def get(self, provision: Provision, version: str) -> Extraction | None:
        """The journaled extraction of this exact provision text and extractor version, if any."""
        stmt = select(journal_table.c.extraction).where(*_key(provision, version))
        try:
            with self.engine.connect() as conn:
                raw = conn.execute(stmt).scalar_one_or_none()
        except SQLAlchemyError as e:
            raise StoreError(f"extraction journal: {sql_error_line(self.url, e)}") from e
        return Extraction.model_validate_json(raw) if raw is not None else None

    def put(self, provision: Provision, version: str, extraction: Extraction) -> None:
        """Record a finished extraction; writing the same key twice keeps one row (the latest)."""
        if (extraction.corpus, extraction.provision_id) != (provision.corpus, provision.id):
            raise ValueError(
                f"extraction of {extraction.corpus}:{extraction.provision_id} cannot be journaled under "
                f"{provision.uid}"
            )
        payload = extraction.model_dump_json()
        now = datetime.now(timezone.utc)
        try:
            with self._lock, self.engine.begin() as conn:
                exists = conn.execute(select(journal_table.c.corpus).where(*_key(provision, version))).first()
                if exists:
                    conn.execute(
                        update(journal_table)
                        .where(*_key(provision, version))
                        .values(extraction=payload, created_at=now)
                    )
                else:
                    conn.execute(
                        journal_table.insert().values(
                            corpus=provision.corpus,
                            provision_id=provision.id,
                            content_hash=provision.hash,
                            extractor_version=version,
                            extraction=payload,
                            created_at=now,
                        )
                    )
        except SQLAlchemyError as e:
            raise StoreError(f"extraction journal: {sql_error_line(self.url, e)}") from e

    def load(self, corpus: str, version: str) -> dict[tuple[str, str], Extraction]:
        """Every journaled extraction of a corpus and extractor version, keyed by (provision id, content
        hash)."""
        c = journal_table.c
        stmt = select(c.provision_id, c.content_hash, c.extraction).where(
            c.corpus == corpus, c.extractor_version == version
        )
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(stmt).all()
        except SQLAlchemyError as e:
            raise StoreError(f"extraction journal {self.url}: {e}") from e
        return {(pid, h): Extraction.model_validate_json(raw) for pid, h, raw in rows}

    def find(
        self, corpus: str, version: str, keys: Iterable[tuple[str, str]]
    ) -> dict[tuple[str, str], Extraction]:
        """The journaled extractions of these (provision id, content hash) keys only: a question's parse is
        read without validating the whole corpus's journal (10k rows, a second of a cold `ask`)."""
        wanted = set(keys)
        ids = sorted({pid for pid, _ in wanted})
        c = journal_table.c
        found: dict[tuple[str, str], Extraction] = {}
        try:
            with self.engine.connect() as conn:
                for at in range(0, len(ids), _IN_CHUNK):
                    stmt = select(c.provision_id, c.content_hash, c.extraction).where(
                        c.corpus == corpus,
                        c.extractor_version == version,
                        c.provision_id.in_(ids[at : at + _IN_CHUNK]),
                    )
                    for pid, h, raw in conn.execute(stmt):
                        if (pid, h) in wanted:
                            found[(pid, h)] = Extraction.model_validate_json(raw)
        except SQLAlchemyError as e:
            raise StoreError(f"extraction journal: {sql_error_line(self.url, e)}") from e
        return found

    def put_many(self, pairs: list[tuple[Provision, Extraction]], version: str) -> None:
        """Record many finished extractions in one transaction (same rules as `put`)."""
        for provision, extraction in pairs:
            if (extraction.corpus, extraction.provision_id) != (provision.corpus, provision.id):
                raise ValueError(
                    f"extraction of {extraction.corpus}:{extraction.provision_id} cannot be journaled under "
                    f"{provision.uid}"
                )
        now = datetime.now(timezone.utc)
        try:
            with self._lock, self.engine.begin() as conn:
                for provision, _ in pairs:
                    conn.execute(journal_table.delete().where(*_key(provision, version)))
                if pairs:
                    conn.execute(
                        journal_table.insert(),
                        [
                            {
                                "corpus": p.corpus,
                                "provision_id": p.id,
                                "content_hash": p.hash,
                                "extractor_version": version,
                                "extraction": ex.model_dump_json(),
                                "created_at": now,
                            }
                            for p, ex in pairs
                        ],
                    )
        except SQLAlchemyError as e:
            raise StoreError(f"extraction journal {self.url}: {e}") from e

    def count(self, corpus: str | None = None, version: str | None = None) -> int:
        """Number of journaled extractions, optionally for one corpus and/or extractor version."""
        stmt = select(func.count()).select_from(journal_table)
        if corpus is not None:
            stmt = stmt.where(journal_table.c.corpus == corpus)
        if version is not None:
            stmt = stmt.where(journal_table.c.extractor_version == version)
        with self.engine.connect() as conn:
            return int(conn.execute(stmt).scalar_one())

    def close(self) -> None:
        """Release the database connections."""
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None


def _key(provision: Provision, version: str) -> tuple:
    c = journal_table.c
    return (
        c.corpus == provision.corpus,
        c.provision_id == provision.id,
        c.content_hash == provision.hash,
        c.extractor_version == version,
    )
