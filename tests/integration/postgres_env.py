"""Where the real PostgreSQL for the SQL-store tests is: ``BIFROST_TEST_PG_URL``, whose user may create
databases (the dev launcher's superuser). Each test gets a new empty database beside it, dropped after.

Unset: a visible skip on a developer machine, a failure in CI (``CI=true``), so that CI never passes
by skipping. Start a server with ``make postgres`` (docker/postgres-launcher/start.sh).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, make_url, text

HOW = (
    "start one with `make postgres` and export "
    "BIFROST_TEST_PG_URL=$(cat docker/postgres-launcher/.runtime/url)"
)


def pg_url() -> str:
    """The URL of the test server's database, or skip (fail in CI) when none is configured."""
    url = os.environ.get("BIFROST_TEST_PG_URL")
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail(f"BIFROST_TEST_PG_URL is not set in CI; {HOW}")
        pytest.skip(f"BIFROST_TEST_PG_URL is not set: no real PostgreSQL to test against ({HOW})")
    return url


@contextmanager
def fresh_database() -> Iterator[str]:
    """The URL of a new empty database on the test server; dropped (connections closed) afterwards."""
    base = make_url(pg_url())
    name = f"bifrost_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield base.set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@contextmanager
def sql_url(kind: str, tmp_path) -> Iterator[str]:
    """A URL of an empty SQL store of ``kind``: ``sqlite`` (a file in tmp_path) or ``postgres``."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
    else:
        with fresh_database() as url:
            yield url


# the parameters of a fixture that runs a test on both stores; the PostgreSQL one is marked
SQL_KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
