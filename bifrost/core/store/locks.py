"""Cross-process locks per corpus, so that writers of one corpus take turns: a PostgreSQL advisory
lock held on its own connection (released when the process dies), or ``flock`` on a file beside a
SQLite database."""

from __future__ import annotations

import logging
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from bifrost.core.errors import StoreError
from bifrost.core.store import db_url

log = logging.getLogger(__name__)

_NAMESPACE = 0x42F0  # first key of pg_advisory_lock(int, int): Bifrost corpus writers


def _key(corpus: str) -> int:
    """A stable signed 32-bit key for a corpus name."""
    k = zlib.crc32(corpus.encode("utf-8"))
    return k - (1 << 32) if k >= 1 << 31 else k


@contextmanager
def _pg_lock(engine: Engine, corpus: str) -> Iterator[None]:
    params = {"ns": _NAMESPACE, "key": _key(corpus)}
    url = engine.url.render_as_string(hide_password=False)
    try:
        conn = engine.connect()
        got = conn.execute(text("SELECT pg_try_advisory_lock(:ns, :key)"), params).scalar()
        if not got:
            log.warning("another process is writing corpus %r; waiting for it to finish", corpus)
            conn.execute(text("SELECT pg_advisory_lock(:ns, :key)"), params)
        conn.commit()
    except SQLAlchemyError as e:
        raise StoreError(
            f"SQL store at {db_url.where(url)}: cannot lock corpus {corpus!r}: {db_url.one_line(e, url)}"
        ) from e
    try:
        yield
    finally:
        try:
            conn.execute(text("SELECT pg_advisory_unlock(:ns, :key)"), params)
            conn.commit()
        finally:
            conn.close()


@contextmanager
def _file_lock(path: Path, corpus: str) -> Iterator[None]:
    import fcntl

    with open(path, "a+b") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.warning("another process is writing corpus %r; waiting for it to finish", corpus)
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@contextmanager
def corpus_lock(engine: Engine, corpus: str) -> Iterator[None]:
    """Hold the writer lock of ``corpus`` in this database (no-op for in-memory SQLite)."""
    if engine.dialect.name == "postgresql":
        with _pg_lock(engine, corpus):
            yield
    elif engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        # one lock file per database; corpora share it (SQLite has one writer at a time anyway)
        with _file_lock(Path(f"{engine.url.database}.lock"), corpus):
            yield
    else:
        yield
