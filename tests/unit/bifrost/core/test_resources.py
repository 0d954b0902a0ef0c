"""`Resources.release_connections`: a forked child drops the parent's pooled SQL connections and opens
its own, and the parent's connections keep working (real fork, SQLite and PostgreSQL)."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from tests.integration.postgres_env import SQL_KINDS, sql_url


def backend_pid(res: Resources) -> int:
    """An id of the connection the pool hands out (PostgreSQL: the server process; SQLite: the object)."""
    with res.sql.engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            return conn.execute(text("select pg_backend_pid()")).scalar_one()
        return id(conn.connection.dbapi_connection)


@pytest.fixture(params=SQL_KINDS)
def resources(request, tmp_path):
    with sql_url(request.param, tmp_path) as url:
        res = Resources(Settings(home=tmp_path / "home", database_url=url))
        yield res
        res.close()


def test_a_forked_child_opens_its_own_connection_and_the_parent_keeps_its_own(resources):
    parent_conn = backend_pid(resources)  # the pool now holds one connection of the parent
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: forget the inherited pool, query through a new connection
        code = 1
        try:
            os.close(read)
            resources.release_connections(close=False)
            os.write(write, str(backend_pid(resources)).encode())
            resources.sql.corpora()
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as pipe:
        child_conn = int(pipe.read() or 0)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    if resources.sql.engine.dialect.name == "postgresql":
        assert child_conn not in (0, parent_conn)  # a server process of its own
    assert backend_pid(resources) == parent_conn  # the parent's pooled connection is intact
    assert resources.sql.corpora() == []
