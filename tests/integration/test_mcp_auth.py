"""MCP over streamable HTTP with tokens on (BIFROST_AUTH=tokens): the real server refuses a call with no
token, a wrong, expired or revoked one (HTTP 401 before any MCP message is read); a token scoped to one
corpus reaches nothing of another through any tool or resource; answers go on the record as its user. On the
embedded store and on PostgreSQL + Neo4j."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from sqlalchemy import update

from bifrost.app.facade import Bifrost
from bifrost.core.access import LOCAL
from bifrost.core.settings import Settings
from bifrost.core.store.sql_models import TokenRow, utcnow
from tests.conftest import subprocess_env
from tests.integration.mcp_client import SyncMcp, free_port, server_command, wait_for_port
from tests.unit.mini_corpus import MARKER, MINI, build_corpus, write_marked_corpus

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


@contextmanager
def store_settings(kind: str, home) -> Iterator[tuple[Settings, dict[str, str]]]:
    """The settings of a home on the embedded store, or on PostgreSQL and Neo4j (with the env a server
    needs)."""
    if kind == "embedded":
        yield Settings(home=home), {}
        return
    from tests.integration.neo4j_env import neo4j_uri
    from tests.integration.postgres_env import fresh_database

    uri = neo4j_uri()
    with fresh_database() as url:
        env = {
            "BIFROST_DATABASE_URL": url,
            "BIFROST_STORE": "neo4j",
            "BIFROST_NEO4J_URI": uri,
            **{k: v for k, v in os.environ.items() if k.startswith("BIFROST_NEO4J_")},
        }
        yield Settings(home=home, database_url=url, store="neo4j", neo4j_uri=uri), env


@pytest.fixture(
    scope="module",
    params=["embedded", pytest.param("servers", marks=[pytest.mark.postgres, pytest.mark.neo4j])],
)
def server(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp-auth")
    with store_settings(request.param, root / "home") as (settings, env):
        yield from serve_mcp(root, settings, env)


def serve_mcp(root, settings: Settings, env: dict[str, str]):
    bf = Bifrost(settings)
    mini, secret = (
        ("mini", "secret") if not env else (f"mini-{uuid.uuid4().hex[:6]}", f"secret-{uuid.uuid4().hex[:6]}")
    )
    build_corpus(bf, mini, MINI)
    build_corpus(bf, secret, write_marked_corpus(root))
    tokens = {
        "rita": bf.users.add("rita", "reader", [mini]).secret,
        "old": bf.users.add("old", "admin", ["all"], expires_days=1).secret,
        "gone": bf.users.add("gone", "admin", ["all"]).secret,
    }
    with bf.sql.session() as s:
        s.execute(
            update(TokenRow).where(TokenRow.user == "old").values(expires_at=utcnow() - timedelta(minutes=1))
        )
    bf.users.revoke("gone")
    port = free_port()
    log = root / "mcp.log"
    proc = subprocess.Popen(
        server_command(root / "home", "--transport", "http", "--port", str(port)),
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env={**subprocess_env(), **env, "BIFROST_AUTH": "tokens"},
    )
    try:
        wait_for_port(port, proc)
        yield bf, f"http://127.0.0.1:{port}/mcp", tokens, log, mini, secret
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if env:
            for corpus in (mini, secret):
                bf.graph.clear(corpus)
        bf.close()


@pytest.mark.parametrize("who", ["none", "wrong", "expired", "revoked"])
def test_no_mcp_call_is_read_without_a_live_token(server, who):
    _, url, tokens, _, _, _ = server
    headers = {"accept": "application/json, text/event-stream"}
    if who != "none":
        headers["authorization"] = (
            "Bearer "
            + {"wrong": "bft_0123456789ab_" + "x" * 43, "expired": tokens["old"], "revoked": tokens["gone"]}[
                who
            ]
        )
    r = httpx.post(url, json=INIT, headers=headers, timeout=30)
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
    assert MARKER not in r.text and "bft_" not in r.text


def test_a_token_for_one_corpus_reaches_nothing_of_another(server):
    bf, url, tokens, log, mini, secret = server
    session = SyncMcp(url, headers={"Authorization": f"Bearer {tokens['rita']}"})
    try:
        for tool, args in [
            ("search", {"query": "anchorage", "corpus": secret}),
            ("ask", {"question": "anchorage inspection", "corpus": secret}),
            ("ask", {"question": "anchorage inspection", "corpus": f"{mini},{secret}"}),
            ("provision", {"id": "1926.504(a)(1)", "corpus": secret}),
            ("neighbours", {"id": "1926.504", "corpus": secret}),
            ("entity", {"name": "anchorage", "corpus": secret}),
            ("precedents", {"question": "anchorage", "corpus": secret}),
            ("diff", {"corpus": secret}),
        ]:
            with pytest.raises(MCPError) as info:
                session.call(tool, **args)
            assert info.value.data == {"error": "forbidden"}, tool
            assert MARKER not in info.value.message
        with pytest.raises(MCPError):
            session.read(f"bifrost://{secret}/1926.504%28a%29%281%29")
        listed, cursor = [], None
        while True:
            page = session.resources(cursor)
            listed += [str(r.uri) for r in page.resources]
            cursor = page.next_cursor
            if not cursor:
                break
        assert listed and all(u.startswith(f"bifrost://{mini}/") for u in listed)
        answer = session.call("ask", question="anchorage inspection", corpus="all")
        assert answer["corpus"] == mini and MARKER not in str(answer)
        record = bf.answer_log.get(answer["record_id"], LOCAL)
        assert (record.user, record.channel, record.corpus) == ("rita", "mcp", mini)
    finally:
        session.close()
    assert tokens["rita"] not in log.read_text()  # no secret in the server's log
