"""Schema migrations of the SQL store (Alembic, configured in code): status, upgrade, and the check
every store open makes.

A SQLite home is created at the newest revision and upgraded when opened (one user, one file). A
server database (PostgreSQL) is created when empty, but an existing schema is changed only by
`bifrost db upgrade`, since other processes share it. A home made before migrations existed (the
tables, no ``alembic_version``) is adopted: the first revision creates only the tables it lacks.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Connection, Engine, MetaData, inspect, text
from sqlalchemy.exc import SQLAlchemyError

from bifrost.core.errors import StoreError
from bifrost.core.store import db_url
from bifrost.core.store.sql_models import Base

if TYPE_CHECKING:  # alembic is imported only when a schema is read or changed, not on every store open
    from alembic.config import Config
    from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
UPGRADE_COMMAND = "bifrost db upgrade"
_PG_LOCK = 7_405_372_901  # pg_advisory_xact_lock key: one schema change at a time per database


class SchemaStatus(BaseModel):
    """Where a database's schema stands against this code's migrations."""

    model_config = ConfigDict(frozen=True)

    where: str
    current: str | None
    head: str
    empty: bool  # no table of the SQL store yet
    legacy: bool  # tables made before migrations (no alembic_version)

    @property
    def up_to_date(self) -> bool:
        return self.current == self.head


def target_metadata() -> MetaData:
    """Every table of the SQL store (the entity tables register themselves on import)."""
    import bifrost.core.store.entity_tables  # noqa: F401

    return Base.metadata


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration in code: the packaged migrations, run on ``connection``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg


def _scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


_REVISION = re.compile(r'^(down_revision|revision)\b[^=]*=\s*(?:"([^"]*)"|None)', re.M)


@cache
def written_head() -> str | None:
    """The newest revision as the migration files write it (the one no other revises), read without importing
    alembic (0.5 s of every store open); None when the files do not say it plainly (alembic then decides)."""
    revisions, revised = set(), set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        found = dict((k, v) for k, v in _REVISION.findall(path.read_text()))
        if "revision" not in found:
            continue
        revisions.add(found["revision"])
        if found.get("down_revision"):
            revised.add(found["down_revision"])
    heads = revisions - revised
    return next(iter(heads)) if len(heads) == 1 else None


def _at_written_head(conn: Connection) -> bool:
    """Whether the database's recorded revision is the written head (plain SQL, no alembic)."""
    head = written_head()
    if head is None or "alembic_version" not in inspect(conn).get_table_names():
        return False
    rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return rows == [head]


def head_revision() -> str:
    """The newest revision this code knows."""
    head = _scripts().get_current_head()
    assert head is not None, "the migrations folder has no revision"
    return head


def _status(conn: Connection, url: str) -> SchemaStatus:
    from alembic.runtime.migration import MigrationContext

    current = MigrationContext.configure(conn).get_current_revision()
    tables = set(inspect(conn).get_table_names()) & set(target_metadata().tables)
    return SchemaStatus(
        where=db_url.where(url),
        current=current,
        head=head_revision(),
        empty=not tables,
        legacy=current is None and bool(tables),
    )


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK})


def _check_known(st: SchemaStatus) -> None:
    if st.current is not None and not _known(st.current):
        raise StoreError(
            f"the SQL store at {st.where} has schema revision {st.current}, which this Bifrost does not know "
            f"(written by a newer version?); upgrade Bifrost"
        )


def _known(revision: str) -> bool:
    return any(r.revision == revision for r in _scripts().walk_revisions())


def _upgrade_on(conn: Connection, revision: str) -> None:
    from alembic import command

    command.upgrade(alembic_config(conn), revision)


def outdated_message(st: SchemaStatus) -> str:
    found = st.current or "none (tables made before migrations)"
    return (
        f"the SQL store at {st.where} has schema revision {found}, older than this Bifrost's {st.head}; "
        f"run `{UPGRADE_COMMAND}` (with the same BIFROST_DATABASE_URL) to migrate it"
    )


def _connect(engine: Engine) -> Connection:
    """A connection, or one line saying the database cannot be reached (host named, no password)."""
    url = engine.url.render_as_string(hide_password=False)
    try:
        return engine.connect()
    except (SQLAlchemyError, OSError) as e:
        if engine.dialect.name == "sqlite":  # a file: no server to start, the folder may be unwritable
            raise StoreError(
                f"cannot open the SQL store at {db_url.where(url)}: {db_url.one_line(e, url)}; the folder "
                "or file "
                "is not writable or the disk is full: make it writable or free some space and run the "
                "command again"
            ) from e
        raise StoreError(
            f"cannot reach the SQL store at {db_url.where(url)}: {db_url.one_line(e, url)}; check "
            "BIFROST_DATABASE_URL "
            f"and that the server runs (`make postgres` starts a local one), then `{UPGRADE_COMMAND}`"
        ) from e


def _failed(e: SQLAlchemyError, engine: Engine) -> StoreError:
    url = engine.url.render_as_string(hide_password=False)
    return StoreError(
        f"schema migration of the SQL store at {db_url.where(url)} failed: {db_url.one_line(e, url)}"
    )


def ensure_schema(engine: Engine) -> None:
    """What every store open does: create an empty database at head, upgrade an older SQLite home,
    and refuse (one line naming `bifrost db upgrade`) an older schema on a server."""
    url = engine.url.render_as_string(hide_password=False)
    with _connect(engine) as conn:
        try:
            if _at_written_head(conn) or _status(conn, url).up_to_date:
                return
            conn.rollback()
            with conn.begin():
                _lock(conn)
                st = _status(conn, url)  # again, under the lock: another process may have done it
                _check_known(st)
                if st.up_to_date:
                    return
                if not (st.empty or conn.dialect.name == "sqlite"):
                    raise StoreError(outdated_message(st))
                _upgrade_on(conn, "head")
        except SQLAlchemyError as e:
            raise _failed(e, engine) from e


def status(engine: Engine) -> SchemaStatus:
    """The schema revision of a database against this code's newest."""
    with _connect(engine) as conn:
        try:
            return _status(conn, engine.url.render_as_string(hide_password=False))
        except SQLAlchemyError as e:
            raise _failed(e, engine) from e


def upgrade(engine: Engine, revision: str = "head") -> tuple[SchemaStatus, SchemaStatus]:
    """Migrate a database to ``revision`` (default the newest); the status before and after."""
    url = engine.url.render_as_string(hide_password=False)
    with _connect(engine) as conn:
        try:
            with conn.begin():
                _lock(conn)
                before = _status(conn, url)
                _check_known(before)
                _upgrade_on(conn, revision)
            after = _status(conn, url)
            conn.rollback()
            return before, after
        except SQLAlchemyError as e:
            raise _failed(e, engine) from e


def schema_diff(engine: Engine) -> list:
    """Differences between the database and the models (empty when the migrations match them)."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        return compare_metadata(ctx, target_metadata())


def new_revision(url: str, message: str) -> None:
    """Autogenerate a revision from the models' difference to a database at head (for developers)."""
    from sqlalchemy import create_engine

    engine = create_engine(url)
    upgrade(engine)
    head = head_revision()
    # 0001, 0002, ...: the order reads in the folder
    rev_id = f"{int(head) + 1:04d}" if head.isdigit() else None
    from alembic import command

    with engine.connect() as conn:
        command.revision(alembic_config(conn), message=message, autogenerate=True, rev_id=rev_id)


if __name__ == "__main__":  # python -m bifrost.core.store.schema revision -m "..." [sqlite URL]
    if len(sys.argv) >= 4 and sys.argv[1] == "revision" and sys.argv[2] == "-m":
        new_revision(sys.argv[4] if len(sys.argv) > 4 else "sqlite://", sys.argv[3])
    else:
        print('usage: python -m bifrost.core.store.schema revision -m "message" [database URL]')
