"""Who is asking: an ASGI middleware that puts the request's `Principal` in ``scope["state"]``, and the
login and logout pages that set and clear the signed session cookie.

With authentication off (loopback, one user) every request runs as `LOCAL`. With it on, a request carries
``Authorization: Bearer <token>`` (API, scripts, assistants) or the session cookie of a login (the web page);
without either, the API answers 401 and a page answers 401 with the login form. Failed attempts are limited
per client address. A form posted with a session must carry the session's CSRF value, and a cross-origin
``Origin`` is refused."""

from __future__ import annotations

import hmac
import math
from collections.abc import Callable
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlsplit

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from bifrost.app.team.sessions import COOKIE, Sessions
from bifrost.app.team.users import Users
from bifrost.app.web.render import render
from bifrost.app.http.limits import ASGIApp, Receive, Scope, Send, TokenBuckets, header, send_error
from bifrost.core.access import LOCAL, AccessDenied, Principal, Unauthenticated

OPEN_PATHS = ("/static/", "/api/health", "/login", "/favicon.ico")
FAILED_ATTEMPTS = (20, 60.0)  # per client address: 20 failed authentications a minute, then 429


def _cookie(scope: Scope, name: str) -> str | None:
    raw = header(scope, b"cookie")
    if not raw:
        return None
    jar = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # noqa: BLE001 - a malformed cookie header reads as no cookie
        return None
    morsel = jar.get(name)
    return morsel.value if morsel else None


class AuthMiddleware:
    """Sets ``scope["state"]["principal"]`` (None on an open path without credentials) and, for a session,
    ``scope["state"]["csrf"]``; refuses what needs credentials and has none."""

    def __init__(
        self,
        app: ASGIApp,
        users: Users | None,
        sessions: Sessions | None,
        required: bool,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.app = app
        self.users = users
        self.sessions = sessions
        self.required = required
        self.failed = TokenBuckets(*FAILED_ATTEMPTS, **({"clock": clock} if clock else {}))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        if not self.required:
            state["principal"] = LOCAL
            await self.app(scope, receive, send)
            return
        principal, problem = await self._principal(scope, state)
        path = scope.get("path", "")
        if principal is None and not path.startswith(OPEN_PATHS):
            await self._refuse(scope, send, problem)
            return
        state["principal"] = principal
        await self.app(scope, receive, send)

    async def _principal(self, scope: Scope, state: dict) -> tuple[Principal | None, str | None]:
        assert self.users is not None and self.sessions is not None
        given = header(scope, b"authorization")
        if given:
            scheme, _, credential = given.partition(" ")
            if scheme.lower() != "bearer" or not credential.strip():
                return None, "send the token as: Authorization: Bearer <token>"
            try:
                return await anyio.to_thread.run_sync(self.users.authenticate, credential.strip()), None
            except Unauthenticated as e:
                return None, str(e)
        session = self.sessions.read(_cookie(scope, COOKIE))
        if session is None:
            return None, None
        try:
            principal = await anyio.to_thread.run_sync(self.users.by_token_id, session.token_id)
        except Unauthenticated as e:
            return None, str(e)
        state["csrf"] = session.csrf
        return principal, None

    async def _refuse(self, scope: Scope, send: Send, problem: str | None) -> None:
        path = scope.get("path", "")
        if problem is not None:
            client = (scope.get("client") or ("unknown", 0))[0]
            wait = self.failed.take(str(client))
            if wait > 0:
                await send_error(
                    send,
                    429,
                    "rate_limited",
                    "too many failed authentications from this address",
                    {"retry-after": str(max(1, math.ceil(wait)))},
                )
                return
        if path.startswith(("/api", "/mcp", "/openapi.json", "/docs", "/redoc")):
            message = (
                problem or "authentication required: send Authorization: Bearer <token> (`bifrost users add`)"
            )
            await send_error(
                send, 401, "unauthorized", message, {"www-authenticate": 'Bearer realm="bifrost"'}
            )
            return
        query = scope.get("query_string", b"").decode("latin-1")
        target = path + (f"?{query}" if query else "")
        error = f"Log in again: {problem}." if problem else None
        body = login_html(scope, target, error).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="bifrost"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def login_html(scope: Scope, target: str, error: str | None) -> str:
    """The login page (HTTP 401 at the page asked for; the form posts to /login and comes back here)."""
    templates = scope["app"].state.templates
    return templates.get_template("login.html").render(
        next=safe_next(target),
        error=error,
        corpora=[],
        default_corpus=None,
        max_question=0,
        user=None,
        csrf="",
        can_review=False,
    )


def principal_of(request: Request) -> Principal:
    """The request's principal (`LOCAL` when authentication is off); 401 on an open path without
    credentials."""
    principal = request.scope.get("state", {}).get("principal")
    if principal is None:
        raise Unauthenticated("authentication required")
    return principal


def safe_next(target: str | None) -> str:
    """Where to go after a login: a path on this site only (never ``//host`` or a scheme)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else "/"


def same_origin(request: Request) -> bool:
    """False when the browser says the form came from another site (``Origin`` or ``Referer``)."""
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin or origin == "null":
        return origin != "null"
    return urlsplit(origin).netloc == request.headers.get("host", "")


async def form_of(request: Request) -> dict[str, list[str]]:
    """An urlencoded form body (the body limit has already been applied)."""
    return parse_qs((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)


def check_form(request: Request, form: dict[str, list[str]]) -> Principal:
    """The principal posting a form: same origin, and with a session the session's CSRF value."""
    if not same_origin(request):
        raise AccessDenied("a form from another site was refused")
    principal = principal_of(request)
    expected = request.scope.get("state", {}).get("csrf")
    if expected is not None:
        given = (form.get("csrf") or [""])[0]
        if not hmac.compare_digest(given.encode(), expected.encode()):
            raise AccessDenied("the form's CSRF value is missing or wrong: reload the page and try again")
    return principal


router = APIRouter(include_in_schema=False)


def _login_page(
    request: Request, status: int = 200, error: str | None = None, target: str = "/"
) -> HTMLResponse:
    return render(request, "login.html", status=status, error=error, next=target)


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, next: str = "/") -> HTMLResponse:  # noqa: A002 - the query name
    return _login_page(request, target=safe_next(next))


@router.post("/login")
async def login(request: Request) -> Response:
    web = request.app.state.web
    form = await form_of(request)
    target = safe_next((form.get("next") or ["/"])[0])
    if not same_origin(request):
        return _login_page(request, 403, "a login from another site was refused", target)
    if not web.auth_required:
        return RedirectResponse(target, status_code=303)
    token = (form.get("token") or [""])[0].strip()
    try:
        principal = await anyio.to_thread.run_sync(web.bifrost.users.authenticate, token)
    except Unauthenticated as e:
        return _login_page(request, 401, f"Login failed: {e}.", target)
    cookie, _session = web.sessions.make(principal.token_id)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        COOKIE,
        cookie,
        max_age=web.sessions.max_age,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    form = await form_of(request)
    check_form(request, form)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )
    return response
