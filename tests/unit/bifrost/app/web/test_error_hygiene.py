"""No error body of the web app or the JSON API carries credentials, connection URLs, SQL or file
paths of the home: every error path of the API tests is driven here (validation, unknown corpus
and provision, unknown route, store down, crash, health, body too large, rate limit, pages), with
failures whose messages hold a password, URLs and SQL; the full error is in the server log under
the reference the client sees."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from bifrost.app.web import create_app
from bifrost.app.web.errors import redact
from bifrost.core.errors import BifrostError, NotFoundError, StoreError

pytestmark = pytest.mark.timeout(300)

PASSWORD = "hunter2"
QUESTION = "What training must the employer provide?"


def leaky(home) -> str:
    """A message as drivers and SQLAlchemy write them: URLs with passwords, SQL, paths of the home."""
    return (
        "(psycopg2.OperationalError) connection to "
        f"postgresql://bifrost:{PASSWORD}@db.internal:5432/bifrost failed; "
        f"password={PASSWORD}; neo4j at bolt://neo4j:{PASSWORD}@graph:7687 refused; cache "
        f"sqlite:///{home}/bifrost.db "
        f"locked; index {home}/index/eng.npz missing\n"
        "[SQL: SELECT provisions.id FROM provisions WHERE provisions.corpus = ?]\n"
        "[parameters: ('mini',)]\n(Background on this error at: https://sqlalche.me/e/20/e3q8) "
        "INSERT INTO graph_nodes (uid) VALUES ('x')"
    )


def secrets(home) -> list[str]:
    return [
        PASSWORD,
        "password",
        "bolt://",
        "postgresql://",
        "sqlite:///",
        "SELECT",
        "INSERT",
        "[SQL",
        str(home),
        "/index/",
        "bifrost.db",
        "db.internal",
    ]


def assert_clean(r, home) -> None:
    found = [s for s in secrets(home) if s in r.text]
    assert not found, f"{r.request.method} {r.request.url} ({r.status_code}) leaks {found}: {r.text[:300]}"


def raiser(exc: BaseException) -> Callable:
    def boom(*args, **kwargs):
        raise exc

    return boom


@pytest.fixture
def home(bf):
    return bf.settings.home


@pytest.fixture
def client(bf):
    with TestClient(create_app(bf), raise_server_exceptions=False) as c:
        yield c


# --- the error paths of the API suite, and more ----------------------------------------------------

CLIENT_ERRORS = [
    ("post", "/api/ask", {"json": {"question": "", "corpus": "mini"}}, 422),
    ("post", "/api/ask", {"json": {"question": "x" * 2001, "corpus": "mini"}}, 422),
    ("post", "/api/ask", {"json": {"question": QUESTION, "corpus": "nope"}}, 404),
    ("post", "/api/ask", {"json": {}}, 422),
    ("post", "/api/ask", {"json": {"question": QUESTION, "extra": 1}}, 422),
    ("post", "/api/ask", {"json": {"question": QUESTION, "options": {"top_n": 0}}}, 422),
    ("post", "/api/ask", {"json": {"question": QUESTION, "postgresql://u:hunter2@h/db": 1}}, 422),
    (
        "post",
        "/api/ask",
        {"content": b"question=hi", "headers": {"content-type": "application/x-www-form-urlencoded"}},
        422,
    ),
    ("post", "/api/ask", {"content": b"{not json", "headers": {"content-type": "application/json"}}, 422),
    ("get", "/api/provision/mini/1926.999(z)", {}, 404),
    ("get", "/api/provision/nope/1926.500", {}, 404),
    ("get", "/api/nothing", {}, 404),
    ("delete", "/api/ask", {}, 405),
    ("get", "/ask", {"params": {"q": "", "corpus": "mini"}}, 400),
    ("get", "/ask", {"params": {"q": "x" * 2001, "corpus": "mini"}}, 400),
    ("get", "/ask", {"params": {"q": QUESTION, "corpus": "nope"}}, 404),
    ("get", "/provision/mini/1926.999(z)", {}, 404),
    ("get", "/entity/nope/employer", {}, 404),
    ("get", "/nothing/here", {}, 404),
]


@pytest.mark.parametrize(
    "method,path,kwargs,status", CLIENT_ERRORS, ids=[f"{m} {p} {s}" for m, p, _, s in CLIENT_ERRORS]
)
def test_client_errors_carry_no_secrets(client, home, method, path, kwargs, status):
    r = getattr(client, method)(path, **kwargs)
    assert r.status_code == status
    assert_clean(r, home)


@pytest.mark.parametrize("path", ["/api/provision/mini/1926.500", "/provision/mini/1926.500"])
@pytest.mark.parametrize(
    "exc_type,status", [(StoreError, 503), (RuntimeError, 500), (NotFoundError, 404), (BifrostError, 400)]
)
def test_failures_with_secrets_in_their_message_are_logged_not_sent(
    bf, home, monkeypatch, caplog, path, exc_type, status
):
    monkeypatch.setattr(bf, "show", raiser(exc_type(leaky(home))))
    caplog.set_level(logging.WARNING, logger="bifrost.app.web")
    r = TestClient(create_app(bf), raise_server_exceptions=False).get(path)
    assert r.status_code == status
    assert_clean(r, home)
    ref = re.search(r"reference ([0-9a-f]{12})", r.text).group(1)
    if path.startswith("/api"):
        assert r.json()["reference"] == ref and "\n" not in r.json()["message"]
    [record] = [rec for rec in caplog.records if ref in rec.getMessage()]
    logged = record.getMessage() + (
        logging.Formatter().formatException(record.exc_info) if record.exc_info else ""
    )
    assert PASSWORD in logged and "SELECT provisions.id" in logged


def test_ask_failing_in_the_store_is_clean(bf, home, monkeypatch, client):
    monkeypatch.setattr(bf, "ask", raiser(StoreError(leaky(home))))
    for r in (
        client.post("/api/ask", json={"question": QUESTION, "corpus": "mini"}),
        client.get("/ask", params={"q": QUESTION, "corpus": "mini"}),
    ):
        assert r.status_code == 503
        assert_clean(r, home)


def test_health_with_a_failing_store_is_clean(bf, home, monkeypatch, caplog):
    monkeypatch.setattr(bf.sql, "corpora", raiser(RuntimeError(leaky(home))))
    r = TestClient(create_app(bf), raise_server_exceptions=False).get("/api/health")
    assert r.status_code == 503 and r.json()["store_reachable"] is False
    assert_clean(r, home)
    assert "reference" in r.json()["detail"] and PASSWORD in caplog.text


def test_limits_answer_cleanly(bf, home, monkeypatch):
    monkeypatch.setattr(bf.settings, "rate_limit", "1/minute")
    with TestClient(create_app(bf), raise_server_exceptions=False) as c:
        big = c.post(
            "/api/ask",
            content=b"x" * (bf.settings.max_body_bytes + 1),
            headers={"content-type": "application/json"},
        )
        assert big.status_code == 413
        assert_clean(big, home)
        throttled = c.get("/api/provision/mini/1926.500")
        assert throttled.status_code == 429
        assert_clean(throttled, home)


# --- the redaction itself ----------------------------------------------------------------------------


def test_redact_removes_urls_credentials_sql_and_paths(tmp_path):
    text = redact(leaky(tmp_path), tmp_path)
    assert "\n" not in text and not [s for s in secrets(tmp_path) if s in text]
    assert text.startswith("(psycopg2.OperationalError) connection to <url> failed; <redacted>;")


@pytest.mark.parametrize(
    "message",
    [
        "unknown corpus 'nope'; loaded corpora: mini",
        "provision '1926.500(b)[Leading edge]' is not in corpus 'osha-1926'",
        "entity 'walking/working surface' not found",
        "the question has 2001 characters; the limit is 2000",
    ],
)
def test_redact_keeps_ordinary_messages(message):
    assert redact(message) == message


def test_redact_caps_the_length():
    assert len(redact("word " * 500)) == 300
