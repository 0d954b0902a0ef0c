"""Security headers on every response: no sniffing, no framing, no referrer off the site, a content policy
that allows this site's own styles and nothing inline or remote, and no caching of answers or records."""

from __future__ import annotations

from bifrost.app.http.limits import ASGIApp, Receive, Scope, Send

CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
INTERACTIVE_DOCS = ("/docs", "/redoc")  # FastAPI's own pages load their script from a CDN: no CSP there


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        extra = list(HEADERS)
        if not path.startswith(INTERACTIVE_DOCS):
            extra.append((b"content-security-policy", CSP.encode()))
        if not path.startswith("/static/"):
            extra.append((b"cache-control", b"no-store"))

        await self.app(scope, receive, sending_with(send, extra))


def sending_with(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    """``send`` that adds ``extra`` headers to the response start (a header the app set itself is kept)."""

    async def send_with_headers(message):
        if message["type"] == "http.response.start":
            have = {k.lower() for k, _ in message.get("headers", [])}
            message["headers"] = [*message.get("headers", []), *((k, v) for k, v in extra if k not in have)]
        await send(message)

    return send_with_headers
