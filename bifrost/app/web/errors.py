"""What web and API clients see of an error: a one-line message without credentials, connection
URLs, SQL or server paths; the full error goes to the server log under a reference the client sees.

- A client error (4xx: bad question, unknown corpus or provision) keeps its message, redacted.
- A server-side failure (5xx: a store or model is down, an unexpected exception) gets a fixed
  message naming what is unavailable and a reference id; the log line with the same reference
  has the exception and its traceback.
"""

from __future__ import annotations

import logging
import re
import uuid
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from bifrost.app.web.render import render
from bifrost.app.inputs import error_details, one_line
from bifrost.core.access import AccessDenied, Unauthenticated
from bifrost.core.errors import BifrostError, ModelUnavailableError, NotFoundError, RetryableError, StoreError

log = logging.getLogger(__name__)

MAX_MESSAGE = 300
_SQL_TAIL = re.compile(r"\s*\[(?:SQL|parameters):.*", re.DOTALL)
_BACKGROUND = re.compile(r"\s*\(Background on this error at:[^)]*\)")
_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s'\"<>]*", re.IGNORECASE)
_SECRET_KV = re.compile(
    r"\b(password|passwd|pwd|secret|token|api[_-]?key|authorization|auth)\b(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;]+)",
    re.IGNORECASE,
)
_USERINFO = re.compile(r"[^\s/:@'\"]+:[^\s/@'\"]+@")
_STATEMENT = re.compile(
    r"\b(?:SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|MATCH|MERGE|UNWIND)\b\s.*", re.DOTALL
)
_ABS_PATH = re.compile(r"(?<![\w.:/~-])(?:/[\w.@+~-]+){2,}/?")

_UNAVAILABLE = {
    StoreError: "a data store is unavailable",
    ModelUnavailableError: "the model is unavailable",
    RetryableError: "a temporary failure occurred; try again",
}


def redact(message: str, home: Path | None = None) -> str:
    """``message`` on one line, with SQL, URLs, credentials and file paths replaced by placeholders."""
    text = _SQL_TAIL.sub("", message)
    text = _BACKGROUND.sub("", text)
    text = _URL.sub("<url>", text)
    if home is not None:  # the home and whatever follows it, even a relative home
        for form in sorted({str(home), str(Path(home).expanduser().resolve())}, key=len, reverse=True):
            text = re.sub(re.escape(form) + r"[^\s'\"]*", "<path>", text)
    text = _SECRET_KV.sub("<redacted>", text)
    text = _USERINFO.sub("<redacted>@", text)
    text = _STATEMENT.sub("<query>", text)
    text = _ABS_PATH.sub("<path>", text)
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def new_reference() -> str:
    """A short random id that ties a client's error to the server log line."""
    return uuid.uuid4().hex[:12]


def status_for(exc: BifrostError) -> tuple[int, str]:
    """HTTP status and error code of a Bifrost error."""
    if isinstance(exc, Unauthenticated):
        return 401, "unauthorized"
    if isinstance(exc, AccessDenied):
        return 403, "forbidden"
    if isinstance(exc, NotFoundError):
        return 404, "not_found"
    if isinstance(exc, (StoreError, ModelUnavailableError, RetryableError)):
        return 503, "unavailable"
    return 400, "bad_request"


def unavailable_message(exc: BaseException, ref: str) -> str:
    """The fixed client message of a server-side failure, with its reference."""
    what = next(
        (text for cls, text in _UNAVAILABLE.items() if isinstance(exc, cls)), "the service is unavailable"
    )
    return f"{what} (reference {ref}); the server log has the details"


def wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return request.url.path.startswith("/api") or ("application/json" in accept and "text/html" not in accept)


def error_response(
    request: Request, status: int, code: str, message: str, ref: str | None = None, extra: dict | None = None
) -> Response:
    """A JSON error body for the API, an HTML error page for everything else."""
    if wants_json(request):
        body = {"error": code, "message": message, **(extra or {})}
        if ref is not None:
            body["reference"] = ref
        return JSONResponse(body, status_code=status)
    try:
        return render(
            request, "error.html", status=status, code=code, message=message, title=f"Error {status}"
        )
    except Exception:  # noqa: BLE001 - the error page itself must never fail the response
        log.exception("rendering the error page failed")
        return HTMLResponse(f"<h1>Error {status}</h1>", status_code=status)


def home_of(request: Request) -> Path | None:
    web = getattr(request.app.state, "web", None)
    return web.bifrost.settings.home if web is not None else None


def client_message(request: Request, status: int, message: str) -> tuple[str, str | None]:
    """The redacted message of a client error; when redaction changed it, the full one is logged
    under a new reference, which the message names and which is returned too."""
    clean = redact(message, home_of(request))
    if clean == " ".join(message.split()):
        return clean, None
    ref = new_reference()
    log.warning("error %s (%d) on %s %s: %s", ref, status, request.method, request.url.path, message)
    return f"{clean} (reference {ref})", ref


def add_error_handlers(app: FastAPI) -> None:
    """Map validation, Bifrost and HTTP errors to clean bodies; log server-side ones with a reference."""

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> Response:
        home = home_of(request)
        details = [{k: redact(v, home) for k, v in d.items()} for d in error_details(exc.errors())]
        message = one_line(details)
        extra = {"details": details} if request.url.path.startswith("/api") else None
        return error_response(request, 422, "invalid_request", message, extra=extra)

    @app.exception_handler(BifrostError)
    async def on_bifrost(request: Request, exc: BifrostError) -> Response:
        status, code = status_for(exc)
        if status >= 500:
            ref = new_reference()
            log.error("error %s on %s %s: %s", ref, request.method, request.url.path, exc, exc_info=exc)
            return error_response(request, status, code, unavailable_message(exc, ref), ref)
        message, ref = client_message(request, status, str(exc))
        return error_response(request, status, code, message, ref)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            return error_response(request, 404, "not_found", "no such page")
        message, ref = client_message(request, exc.status_code, str(exc.detail))
        return error_response(request, exc.status_code, "http_error", message, ref)

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> Response:
        ref = new_reference()
        log.error("unhandled error %s on %s %s", ref, request.method, request.url.path, exc_info=exc)
        return error_response(
            request,
            500,
            "internal_error",
            f"internal error (reference {ref}); the server log has the details",
            ref,
        )
