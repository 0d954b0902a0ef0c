"""Engines for the SQL store: SQLite pragmas, a one-line error that never shows the URL's password, and
engines with and without the schema brought up to date."""

from __future__ import annotations

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from bifrost.core.errors import StoreError
from bifrost.core.extras import require_extra
from bifrost.core.store import db_url, schema
from pathlib import Path


def _enable_sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn, _record) -> None:  # pragma: no cover - trivial
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()


def sql_error_line(url: str, e: SQLAlchemyError) -> str:
    """One line for a SQL failure: where the database is (never its password), the driver's own
    message without SQLAlchemy's SQL text and help link, and what to do for a full or read-only disk."""
    reason = db_url.one_line(e, url)
    low = reason.lower()
    hint = ""
    if "disk is full" in low or "no space" in low:
        hint = "; free some space there and run the command again (nothing stored before was lost)"
    elif "disk i/o error" in low:
        hint = "; the disk may be full: free some space there and run the command again"
    elif "readonly" in low or "read-only" in low or "unable to open database file" in low:
        hint = "; the folder or file is not writable: make it writable and run the command again"
    return f"SQL store at {db_url.where(url)}: {reason}{hint}"


def raw_engine(url: str) -> Engine:
    """An engine for a SQLAlchemy URL without any schema check (`make_engine` adds it; `bifrost db`
    uses this one). A bare ``postgresql://`` gets the shipped driver (extra ``postgres``)."""
    try:
        parsed = db_url.parse(url)
    except ArgumentError as e:
        raise StoreError(f"BIFROST_DATABASE_URL is not a database URL ({db_url.one_line(e, url)})") from e
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    if parsed.get_backend_name() == "postgresql":
        require_extra("postgres")
    try:
        engine = create_engine(parsed, future=True, pool_pre_ping=parsed.get_backend_name() != "sqlite")
    except (SQLAlchemyError, ImportError) as e:
        raise StoreError(
            f"cannot open the SQL store at {db_url.where(url)}: {db_url.one_line(e, url)}"
        ) from e
    if engine.dialect.name == "sqlite":
        _enable_sqlite_pragmas(engine)
    return engine


def make_engine(url: str) -> Engine:
    """An engine whose schema is at this code's revision (`schema.ensure_schema`: created when new,
    a SQLite home upgraded, an older server schema refused with the command that migrates it).
    Errors are one line naming where the database is, never its password."""
    engine = raw_engine(url)
    try:
        schema.ensure_schema(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine
