"""ASGI middlewares that protect the web app before any parsing: a request body size limit and an
optional per-client rate limit (token bucket). Both answer with a one-line JSON error.

- `BodyLimitMiddleware` rejects a declared ``Content-Length`` over the limit at once, and counts
  the bytes of a streamed (chunked) body as they arrive, reading at most ``max_bytes + 1`` of
  them; the application sees the body only when it is within the limit (HTTP 413 otherwise).
- `RateLimitMiddleware` gives each token (each client address, for requests without one) a bucket
  of ``requests`` tokens refilled over ``per_seconds``, in memory shared by every worker; an empty
  bucket is HTTP 429 with ``Retry-After``. Static files and ``/api/health`` are exempt. Client
  addresses come from the connection (a proxy in front should set uvicorn's
  ``--forwarded-allow-ips`` so that they are the real clients).
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import multiprocessing
import struct
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from bifrost.core.settings import parse_rate_limit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def send_error(
    send: Send, status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> None:
    """A complete JSON error response, sent without the application."""
    body = json.dumps({"error": code, "message": message}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    """HTTP 413 for a request body over ``max_bytes``, decided before the application reads it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be > 0, got {max_bytes}")
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = header(scope, b"content-length")
        if declared is not None:
            if not (declared.strip().isascii() and declared.strip().isdigit()):
                await send_error(send, 400, "bad_request", "the Content-Length header is not a number")
                return
            if int(declared) > self.max_bytes:
                await self._too_large(send)
                return
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break  # http.disconnect: let the application see it
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await self._too_large(send)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(messages, receive), send)

    async def _too_large(self, send: Send) -> None:
        await send_error(
            send,
            413,
            "payload_too_large",
            f"the request body is over the limit of {self.max_bytes} bytes",
            {"connection": "close"},
        )


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that returns the buffered messages, then defers to the real one."""
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


def header(scope: Scope, name: bytes) -> str | None:
    """A request header's value (latin-1), or None."""
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class TokenBuckets:
    """Per-key token buckets: ``capacity`` tokens, refilled at ``capacity / per_seconds`` per second."""

    def __init__(
        self,
        capacity: int,
        per_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
    ) -> None:
        if capacity < 1 or per_seconds <= 0:
            raise ValueError(
                f"rate limit needs capacity >= 1 and a period > 0, got {capacity}/{per_seconds}s"
            )
        self.capacity = float(capacity)
        self.rate = capacity / per_seconds
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Take one token for ``key``: 0.0 when granted, else the seconds until one is available."""
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                wait = 0.0
            else:
                self._buckets[key] = (tokens, now)
                wait = (1.0 - tokens) / self.rate
            if len(self._buckets) > self.max_keys:
                self._forget_full(now)
        return wait

    def __len__(self) -> int:
        return len(self._buckets)

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled (a full bucket is the same as no bucket), else the oldest half."""
        full = [k for k, (t, last) in self._buckets.items() if t + (now - last) * self.rate >= self.capacity]
        for k in full:
            del self._buckets[k]
        if len(self._buckets) > self.max_keys:
            by_age = sorted(self._buckets, key=lambda k: self._buckets[k][1])
            for k in by_age[: len(by_age) // 2]:
                del self._buckets[k]


class SharedTokenBuckets:
    """Token buckets in anonymous shared memory with a process-shared lock: made before `serve --workers`
    forks, one set of buckets holds for every worker, so a token's limit is the server's, not a process's.
    A fixed table of ``slots`` (key hash, tokens, last refill); a full neighbourhood recycles its stalest
    slot."""

    _SLOT = struct.Struct("<Qdd")
    PROBES = 16

    def __init__(self, slots: int = 8192, clock: Callable[[], float] = time.monotonic) -> None:
        self.slots = slots
        self.clock = clock
        self._mem = mmap.mmap(-1, slots * self._SLOT.size)  # MAP_SHARED | MAP_ANONYMOUS: inherited by forks
        self._lock = multiprocessing.Lock()

    def take(self, key: str, capacity: int, per_seconds: float) -> float:
        """Take one token for ``key``: 0.0 when granted, else the seconds until one is available."""
        h = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little") or 1
        rate = capacity / per_seconds
        now = self.clock()
        size = self._SLOT.size
        with self._lock:
            chosen, tokens, last = -1, float(capacity), now
            stalest, stalest_at = -1, math.inf
            for i in range(self.PROBES):
                j = (h + i) % self.slots
                kh, t, at = self._SLOT.unpack_from(self._mem, j * size)
                if kh == h:
                    chosen, tokens, last = j, t, at
                    break
                if kh == 0:
                    chosen = j
                    break
                if at < stalest_at:
                    stalest, stalest_at = j, at
            if chosen < 0:
                chosen = stalest
            tokens = min(float(capacity), tokens + (now - last) * rate)
            if tokens >= 1.0:
                tokens, wait = tokens - 1.0, 0.0
            else:
                wait = (1.0 - tokens) / rate
            self._SLOT.pack_into(self._mem, chosen * size, h, tokens, now)
        return wait


def client_key(scope: Scope) -> str:
    """Whom a limit counts: the request's token when it has one, else its client address."""
    principal = (scope.get("state") or {}).get("principal")
    token_id = getattr(principal, "token_id", "")
    if token_id:
        return f"token:{token_id}"
    bearer = header(scope, b"authorization")
    # not checked yet (MCP checks it behind this limit): counted by its hash, never by a claimed id
    if bearer:
        return "bearer:" + hashlib.sha256(bearer.encode("latin-1")).hexdigest()[:24]
    client = scope.get("client") or ("unknown", 0)
    return f"addr:{client[0]}"


class RateLimitMiddleware:
    """HTTP 429 with ``Retry-After`` for a token (or a client address without one) over ``requests`` per
    ``per_seconds``, or over its user's own limit; counted across every worker of the server."""

    def __init__(
        self,
        app: ASGIApp,
        requests: int,
        per_seconds: float,
        exempt: tuple[str, ...] = ("/static/", "/api/health"),
        clock: Callable[[], float] = time.monotonic,
        buckets: SharedTokenBuckets | None = None,
    ) -> None:
        if requests < 1 or per_seconds <= 0:
            raise ValueError(
                f"rate limit needs capacity >= 1 and a period > 0, got {requests}/{per_seconds}s"
            )
        self.app = app
        self.rule = (requests, per_seconds)
        self.buckets = buckets or SharedTokenBuckets(clock=clock)
        self.exempt = exempt

    def _rule_of(self, scope: Scope) -> tuple[int, float]:
        own = getattr((scope.get("state") or {}).get("principal"), "rate_limit", None)
        if own:
            return parse_rate_limit(own)
        return self.rule

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").startswith(self.exempt):
            await self.app(scope, receive, send)
            return
        requests, per = self._rule_of(scope)
        key = client_key(scope)
        wait = self.buckets.take(key, requests, per)
        if wait > 0:
            who = "token" if key.startswith("token:") else "client"
            await send_error(
                send,
                429,
                "rate_limited",
                f"too many requests: the limit is {requests} requests per {per:g} s per {who}",
                {"retry-after": str(max(1, math.ceil(wait)))},
            )
            return
        await self.app(scope, receive, send)
