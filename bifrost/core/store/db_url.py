"""Database URLs as users may see them: where a store is (never its password), which driver a
bare ``postgresql://`` gets, and a driver error as one line."""

from __future__ import annotations

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

# The PostgreSQL driver Bifrost ships (extra `postgres`); a bare postgresql:// URL gets it.
PG_DRIVER = "postgresql+psycopg"


def parse(url: str) -> URL:
    """The URL with the shipped PostgreSQL driver filled in when none is named."""
    parsed = make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername=PG_DRIVER)
    return parsed


def where(url: str) -> str:
    """A description of the database without user or password: ``postgresql://host:port/db``,
    ``SQLite file /path``."""
    try:
        u = make_url(url)
    except ArgumentError:
        return "an unparsable database URL (check BIFROST_DATABASE_URL)"
    if u.get_backend_name() == "sqlite":
        return f"SQLite file {u.database}" if u.database and u.database != ":memory:" else "in-memory SQLite"
    port = f":{u.port}" if u.port else ""
    return f"{u.get_backend_name()}://{u.host or 'localhost'}{port}/{u.database or ''}"


def one_line(error: BaseException, url: str) -> str:
    """The first line of a driver error (SQLAlchemy's wrapper and its SQL dropped), password masked."""
    orig = getattr(error, "orig", None) or error
    lines = [ln.strip() for ln in str(orig).splitlines() if ln.strip()]
    text = lines[0] if lines else error.__class__.__name__
    try:
        password = make_url(url).password
    except ArgumentError:
        password = None
    if password:
        text = text.replace(str(password), "***")
    return text
