"""`Resources.release_connections`: a forked child drops the parent's pooled SQL connections and opens
its own, and the parent's connections keep working (real fork, SQLite and PostgreSQL); each home's
chat model keeps its replies in that home's cache."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from tests.conftest import import_or_skip
from tests.integration.postgres_env import SQL_KINDS, sql_url


def backend_pid(resources: Resources) -> int:
    """An id of the connection the pool hands out (PostgreSQL: the server process; SQLite: the object)."""
    with resources.sql.engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            return conn.execute(text("select pg_backend_pid()")).scalar_one()
        return id(conn.connection.dbapi_connection)


@pytest.fixture(params=SQL_KINDS)
def resources(request, tmp_path):
    with sql_url(request.param, tmp_path) as url:
        opened = Resources(Settings(home=tmp_path / "home", database_url=url))
        yield opened
        opened.close()


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


def test_two_homes_in_one_process_keep_their_chat_replies_in_their_own_caches(tmp_path, monkeypatch):
    import_or_skip("langchain_openai", "llm")
    from langchain_core.globals import get_llm_cache
    from langchain_core.outputs import Generation

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    a = Resources(Settings(home=tmp_path / "a", llm_model="m"))
    b = Resources(Settings(home=tmp_path / "b", llm_model="m"))
    try:
        cache_a, cache_b = a.chat_model.cache, b.chat_model.cache
        assert cache_a is not None and cache_b is not None and cache_a is not cache_b
        assert (tmp_path / "a" / "llm_cache.db").is_file() and (tmp_path / "b" / "llm_cache.db").is_file()
        cache_a.update("prompt", "llm", [Generation(text="from a")])
        assert [g.text for g in cache_a.lookup("prompt", "llm")] == ["from a"]
        assert not cache_b.lookup("prompt", "llm")
        assert get_llm_cache() is None  # nothing process-wide was installed
    finally:
        a.close()
        b.close()
