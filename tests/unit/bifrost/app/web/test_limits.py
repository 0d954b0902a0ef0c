"""Request body limit (by Content-Length and by counting a streamed body, before parsing) and the
optional per-client rate limit, on small ASGI apps, the real web app and a real uvicorn server."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from bifrost.app.web import create_app
from bifrost.app.http.limits import BodyLimitMiddleware, RateLimitMiddleware, TokenBuckets
from bifrost.core.settings import Settings, parse_rate_limit

pytestmark = pytest.mark.timeout(120)

LIMIT = 1000


def echo_app(seen: list[int]) -> FastAPI:
    app = FastAPI()

    @app.post("/echo")
    async def echo(request: Request) -> dict:
        body = await request.body()
        seen.append(len(body))
        return {"bytes": len(body)}

    @app.get("/ping")
    async def ping() -> dict:
        return {"ok": True}

    return app


@pytest.fixture
def seen() -> list[int]:
    return []


@pytest.fixture
def limited(seen) -> TestClient:
    app = echo_app(seen)
    app.add_middleware(BodyLimitMiddleware, max_bytes=LIMIT)
    return TestClient(app)


def chunks(total: int, size: int = 100):
    for start in range(0, total, size):
        yield b"x" * min(size, total - start)


def test_a_body_within_the_limit_reaches_the_app_unchanged(limited, seen):
    r = limited.post("/echo", content=b"y" * LIMIT)
    assert r.status_code == 200 and r.json() == {"bytes": LIMIT} and seen == [LIMIT]


def test_a_declared_length_over_the_limit_is_413_before_the_app_runs(limited, seen):
    r = limited.post("/echo", content=b"y" * (LIMIT + 1))
    assert r.status_code == 413 and seen == []
    assert r.json() == {
        "error": "payload_too_large",
        "message": f"the request body is over the limit of {LIMIT} bytes",
    }
    assert "\n" not in r.text


def test_a_streamed_body_is_counted_and_stopped_at_the_limit(limited, seen):
    assert limited.post("/echo", content=chunks(LIMIT)).json() == {"bytes": LIMIT}
    r = limited.post("/echo", content=chunks(LIMIT * 50))
    assert r.status_code == 413 and seen == [LIMIT]


def test_a_bad_content_length_is_400(seen):
    app = BodyLimitMiddleware(echo_app(seen), LIMIT)
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    import asyncio

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/echo",
        "headers": [(b"content-length", "١٢".encode())],
    }
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 400 and seen == []


def test_get_requests_pass(limited):
    assert limited.get("/ping").json() == {"ok": True}


def test_the_web_app_limits_the_body_of_ask(bf):
    c = TestClient(create_app(bf))
    r = c.post(
        "/api/ask",
        content=json.dumps({"question": "x" * bf.settings.max_body_bytes}),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["error"] == "payload_too_large"
    assert c.post("/api/ask", json={"question": "guardrails", "corpus": "mini"}).status_code == 200


def post_chunked_raw(port: int, total: int) -> tuple[int, bytes]:
    """POST a chunked body over a raw socket; the server may answer and close before the client has
    sent everything (that is the point), so a broken pipe while sending is expected, not an error."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            b"POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: application/octet-stream\r\n\r\n"
        )
        try:
            for part in chunks(total):
                sock.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        try:
            while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < content_length(data):
                block = sock.recv(65536)
                if not block:
                    break
                data += block
        except ConnectionResetError:
            pass
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body[: content_length(data)]


def content_length(data: bytes) -> int:
    """The Content-Length of a raw response head (0 until the head is complete)."""
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
    for line in head.split("\r\n"):
        if line.startswith("content-length:"):
            return int(line.split(":", 1)[1])
    return 0


def test_a_real_server_rejects_a_chunked_body_over_the_limit(seen):
    import uvicorn

    app = echo_app(seen)
    app.add_middleware(BodyLimitMiddleware, max_bytes=LIMIT)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        status, body = post_chunked_raw(port, LIMIT * 20)
        assert status == 413 and json.loads(body)["error"] == "payload_too_large"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request(
            "POST", "/echo", body=chunks(LIMIT), encode_chunked=True, headers={"Transfer-Encoding": "chunked"}
        )
        assert json.loads(conn.getresponse().read()) == {"bytes": LIMIT}
        conn.close()
        assert seen == [LIMIT]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


# --- rate limit ----------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_token_buckets_refill_over_the_period():
    clock = Clock()
    buckets = TokenBuckets(3, 60.0, clock)
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(20.0)
    assert buckets.take("b") == 0.0  # another client has its own bucket
    clock.now += 20.0
    assert buckets.take("a") == 0.0 and buckets.take("a") > 0


def test_token_buckets_forget_idle_clients():
    clock = Clock()
    buckets = TokenBuckets(2, 1.0, clock, max_keys=10)
    for i in range(10):
        buckets.take(f"c{i}")
    clock.now += 5.0
    buckets.take("new")
    assert len(buckets) == 1


def test_rate_limit_middleware_answers_429_with_retry_after(seen):
    clock = Clock()
    app = echo_app(seen)
    app.add_middleware(RateLimitMiddleware, requests=2, per_seconds=60.0, exempt=("/ping",), clock=clock)
    c = TestClient(app)
    assert [c.post("/echo", content=b"1").status_code for _ in range(2)] == [200, 200]
    r = c.post("/echo", content=b"1")
    assert r.status_code == 429 and r.headers["retry-after"] == "30"
    assert r.json() == {
        "error": "rate_limited",
        "message": "too many requests: the limit is 2 requests per 60 s per client",
    }
    assert c.get("/ping").status_code == 200  # exempt
    clock.now += 30.0
    assert c.post("/echo", content=b"1").status_code == 200 and seen == [1, 1, 1]


def test_the_web_app_has_no_rate_limit_by_default_and_one_when_set(bf, monkeypatch):
    c = TestClient(create_app(bf))
    assert all(c.get("/api/provision/mini/1926.500").status_code == 200 for _ in range(5))
    monkeypatch.setattr(bf.settings, "rate_limit", "3/hour")
    c = TestClient(create_app(bf))
    codes = [c.get("/api/provision/mini/1926.500").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert c.get("/api/health").status_code == 200 and c.get("/static/style.css").status_code == 200


@pytest.mark.parametrize(
    "text,rule", [("60/minute", (60, 60.0)), ("5/second", (5, 1.0)), (" 100 / hours ", (100, 3600.0))]
)
def test_parse_rate_limit(text, rule):
    assert parse_rate_limit(text) == rule


@pytest.mark.parametrize("text", ["60", "0/minute", "x/minute", "60/day", "²/minute", "-1/second"])
def test_bad_rate_limits_are_refused_by_the_settings(text):
    with pytest.raises(ValueError):
        Settings(rate_limit=text)


def test_shared_buckets_are_one_set_for_every_forked_worker():
    import multiprocessing

    from bifrost.app.http.limits import SharedTokenBuckets

    buckets = SharedTokenBuckets(slots=64)
    ctx = multiprocessing.get_context("fork")

    def drain(n: int) -> None:
        for _ in range(n):
            buckets.take("token:abc", 10, 3600.0)

    workers = [ctx.Process(target=drain, args=(3,)) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(10)
    # the 10th token: 9 were taken in three other processes
    assert buckets.take("token:abc", 10, 3600.0) == 0.0
    assert buckets.take("token:abc", 10, 3600.0) > 0
    assert buckets.take("token:other", 10, 3600.0) == 0.0


def test_shared_buckets_recycle_the_stalest_slot_when_full():
    from bifrost.app.http.limits import SharedTokenBuckets

    clock = Clock()
    buckets = SharedTokenBuckets(slots=4, clock=clock)
    for i in range(4):
        buckets.take(f"k{i}", 1, 60.0)
        clock.now += 1
    assert buckets.take("new", 1, 60.0) == 0.0  # a fifth key gets a slot


def test_the_limit_counts_per_token_and_a_users_own_limit_overrides(seen):
    from bifrost.app.http.limits import SharedTokenBuckets
    from bifrost.core.access import Principal, Role

    principals = {
        "a": Principal(user="a", role=Role.READER, token_id="aaaa"),
        "b": Principal(user="b", role=Role.READER, token_id="bbbb", rate_limit="4/minute"),
    }

    class SetPrincipal:
        def __init__(self, app):
            self.app = app

        async def __call__(self, scope, receive, send):
            who = dict(scope.get("headers", ())).get(b"x-who", b"").decode()
            scope.setdefault("state", {})["principal"] = principals.get(who)
            await self.app(scope, receive, send)

    app = FastAPI()

    @app.get("/q")
    def q():
        return {"ok": True}

    app.add_middleware(
        RateLimitMiddleware, requests=2, per_seconds=60.0, buckets=SharedTokenBuckets(slots=64)
    )
    app.add_middleware(SetPrincipal)
    client = TestClient(app)
    codes = {
        who: [client.get("/q", headers={"x-who": who}).status_code for _ in range(5)] for who in ("a", "b")
    }
    assert codes["a"] == [200, 200, 429, 429, 429]  # the server's limit, for this token alone
    assert codes["b"] == [200, 200, 200, 200, 429]  # b's own limit
    r = client.get("/q", headers={"x-who": "a"})
    assert "per token" in r.json()["message"]
