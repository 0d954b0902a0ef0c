"""The SQL store's schema comes from Alembic migrations: they build exactly the models' schema (SQLite
and PostgreSQL), a new SQLite home starts at the newest revision, a home made by `create_all` before
migrations is adopted with its data, and a database that cannot be used says why in one line naming
its host (never its password) and `bifrost db upgrade`."""

from __future__ import annotations

import socket
import sqlite3

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.core.errors import StoreError
from bifrost.core.store import db_url, schema
from bifrost.core.store.sql_store import SqlStore
from tests.conftest import FIXTURES, import_or_skip
from tests.contract.sample_graph import C, TREE
from tests.integration.postgres_env import SQL_KINDS, fresh_database, sql_url

LEGACY_SQL = FIXTURES / "legacy" / "create_all_sqlite.sql"  # the schema every home had before migrations
PASSWORD = "s3cret-Pw-never-shown"


@pytest.mark.parametrize("kind", SQL_KINDS)
def test_the_migrations_build_exactly_the_models_schema(kind, tmp_path):
    """Strict: a change to sql_models.py or entity_tables.py needs a new revision (see
    migrations/__init__.py)."""
    with sql_url(kind, tmp_path) as url:
        store = SqlStore(url)
        assert schema.status(store.engine).current == schema.head_revision()
        assert schema.schema_diff(store.engine) == []
        tables = set(inspect(store.engine).get_table_names())
        assert tables == set(schema.target_metadata().tables) | {"alembic_version"}
        store.dispose()


def test_a_new_sqlite_home_is_created_at_the_newest_revision(tmp_path):
    store = SqlStore(f"sqlite:///{tmp_path / 'new' / 'bifrost.db'}")
    st = schema.status(store.engine)
    assert (st.current, st.empty, st.legacy, st.up_to_date) == (schema.head_revision(), False, False, True)
    store.dispose()


def _legacy_home(path, skip_table: str | None = None) -> None:
    sql = "\n".join(line for line in LEGACY_SQL.read_text().splitlines() if not line.startswith("--"))
    con = sqlite3.connect(path)
    for stmt in sql.split(";\n"):
        if stmt.strip() and not (
            skip_table and (f"TABLE {skip_table} " in stmt or f" ON {skip_table} " in stmt)
        ):
            con.execute(stmt)
    con.execute(
        "INSERT INTO corpora (name, jurisdiction, created_at) VALUES ('old', 'us-cfr', '2025-01-01 00:00:00')"
    )
    con.commit()
    con.close()


def test_a_home_made_before_migrations_is_adopted_with_its_data(tmp_path):
    db = tmp_path / "bifrost.db"
    _legacy_home(db)
    before = schema.status(create_engine(f"sqlite:///{db}"))
    assert before.legacy and before.current is None
    store = SqlStore(f"sqlite:///{db}")
    assert store.corpora() == ["old"]
    assert schema.status(store.engine).up_to_date and schema.schema_diff(store.engine) == []
    store.dispose()


def test_a_home_made_before_a_table_existed_gets_the_table(tmp_path):
    db = tmp_path / "bifrost.db"
    _legacy_home(db, skip_table="eng_triples")
    assert "eng_triples" not in inspect(create_engine(f"sqlite:///{db}")).get_table_names()
    store = SqlStore(f"sqlite:///{db}")
    assert "eng_triples" in inspect(store.engine).get_table_names()
    assert store.corpora() == ["old"] and schema.schema_diff(store.engine) == []
    store.dispose()


def test_a_schema_newer_than_the_code_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'bifrost.db'}"
    SqlStore(url).dispose()
    with create_engine(url).begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'ffff'"))
    with pytest.raises(StoreError, match="schema revision ffff, which this Bifrost does not know"):
        SqlStore(url)


def _older(url: str) -> None:
    """Put a database at head one revision back: downgraded when there is an older revision, else
    stamped as made before migrations (tables kept, no revision)."""
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg = schema.alembic_config(conn)
        previous = ScriptDirectory.from_config(cfg).get_revision(schema.head_revision()).down_revision
        if previous:
            command.downgrade(cfg, previous)
        else:
            command.stamp(cfg, "base")
    engine.dispose()


def _one_line_naming_host_not_password(message: str, host: str) -> None:
    assert "\n" not in message
    assert host in message and "bifrost db upgrade" in message
    assert PASSWORD not in message


def _cli(url: str, *args: str, home) -> object:
    return CliRunner().invoke(app, ["--home", str(home), *args], env={"BIFROST_DATABASE_URL": url})


@pytest.mark.postgres
def test_an_older_postgres_schema_is_refused_until_bifrost_db_upgrade(tmp_path):
    with fresh_database() as url:
        store = SqlStore(url)
        store.ensure_corpus(C, "us-cfr")
        store.dispose()
        _older(url)
        with pytest.raises(StoreError) as caught:
            SqlStore(url)
        u = db_url.parse(url)
        _one_line_naming_host_not_password(str(caught.value), f"{u.host}:{u.port}")
        assert "older than this Bifrost" in str(caught.value)

        ingest = _cli(
            url, "ingest", str(FIXTURES / "mini" / "part-mini.json"), "--corpus", "mini", home=tmp_path
        )
        assert ingest.exit_code == 1 and "bifrost db upgrade" in ingest.stderr
        upgraded = _cli(url, "db", "upgrade", "--json", home=tmp_path)
        assert upgraded.exit_code == 0, upgraded.output
        status = _cli(url, "db", "status", "--json", home=tmp_path)
        assert '"up_to_date": true' in status.stdout

        store = SqlStore(url)
        assert store.corpora() == [C]  # data kept
        store.dispose()


def test_a_database_that_cannot_be_reached_is_one_line_naming_its_host_not_its_password(tmp_path):
    import_or_skip("psycopg", "postgres")
    with socket.socket() as s:  # a real port with nothing listening on it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://bifrost:{PASSWORD}@127.0.0.1:{port}/bifrost"
    with pytest.raises(StoreError) as caught:
        SqlStore(url)
    _one_line_naming_host_not_password(str(caught.value), f"127.0.0.1:{port}")
    assert "cannot reach" in str(caught.value)
    for args in (
        ["db", "upgrade"],
        ["ingest", str(FIXTURES / "mini" / "part-mini.json"), "--corpus", "mini"],
    ):
        r = _cli(url, *args, home=tmp_path)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert r.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error:")
        _one_line_naming_host_not_password(lines[0], f"127.0.0.1:{port}")


def test_db_upgrade_on_a_sqlite_home_is_safe_to_repeat(tmp_path):
    first = _cli(f"sqlite:///{tmp_path / 'h' / 'bifrost.db'}", "db", "upgrade", home=tmp_path)
    again = _cli(f"sqlite:///{tmp_path / 'h' / 'bifrost.db'}", "db", "upgrade", home=tmp_path)
    assert first.exit_code == 0 and f"none -> {schema.head_revision()}" in first.stdout
    assert again.exit_code == 0 and "already at schema revision" in again.stdout


def test_the_head_read_from_the_migration_files_is_alembics_head():
    assert schema.written_head() == schema.head_revision()


def test_opening_a_store_at_the_newest_revision_imports_no_alembic(tmp_path):
    """Alembic costs half a second of every cold command; a store at head is checked by plain SQL."""
    import subprocess
    import sys

    from tests.conftest import subprocess_env

    SqlStore(f"sqlite:///{tmp_path / 'b.db'}").dispose()  # created at head (alembic runs here, once)
    probe = (
        "import sys; from bifrost.core.store.sql_store import SqlStore; "
        f"SqlStore('sqlite:///{tmp_path / 'b.db'}').dispose(); "
        "print('ALEMBIC=' + str(any(m == 'alembic' or m.startswith('alembic.') for m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], env=subprocess_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "ALEMBIC=False"
