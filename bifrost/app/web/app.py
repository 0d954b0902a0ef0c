"""The Bifrost web application: `create_app(bifrost)` wires pages, JSON API and error mapping.

The facade is injected; the app keeps it on `app.state.web` (no module globals). A
`BifrostError` becomes an HTTP error (JSON under /api, an HTML page elsewhere); anything
unexpected is logged and answered with a clean 500.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from pathlib import Path

import jinja2
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from bifrost.core.errors import BifrostError, ModelUnavailableError, NotFoundError, RetryableError, StoreError
from bifrost.app.facade import Bifrost
from bifrost.app.requests import error_details, one_line
from bifrost.app.web import api, pages
from bifrost.app.web.service import WebState
from bifrost.app.web.views import entity_url, provision_url

log = logging.getLogger(__name__)
HERE = Path(__file__).parent


def status_for(exc: BifrostError) -> tuple[int, str]:
    """HTTP status and error code of a Bifrost error."""
    if isinstance(exc, NotFoundError):
        return 404, "not_found"
    if isinstance(exc, (StoreError, ModelUnavailableError, RetryableError)):
        return 503, "unavailable"
    return 400, "bad_request"


def make_templates() -> Jinja2Templates:
    """Jinja2 templates with autoescaping always on and the URL helpers as globals."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True,
    )
    env.globals.update(provision_url=provision_url, entity_url=entity_url)
    return Jinja2Templates(env=env)


def error_response(request: Request, status: int, code: str, message: str) -> Response:
    """A JSON error body for the API, an HTML error page for everything else."""
    accept = request.headers.get("accept", "")
    wants_json = "application/json" in accept and "text/html" not in accept
    if request.url.path.startswith("/api") or wants_json:
        return JSONResponse({"error": code, "message": message}, status_code=status)
    try:
        return pages.render(request, "error.html", status=status, code=code, message=message, title=f"Error {status}")
    except Exception:  # noqa: BLE001 - the error page itself must never fail the response
        log.exception("rendering the error page failed")
        return HTMLResponse(f"<h1>Error {status}</h1>", status_code=status)


def add_error_handlers(app: FastAPI) -> None:
    """Map validation, Bifrost and HTTP errors to clean bodies; log unexpected ones."""

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> Response:
        details = error_details(exc.errors())
        message = one_line(details)
        if request.url.path.startswith("/api"):
            return JSONResponse({"error": "invalid_request", "message": message, "details": details}, status_code=422)
        return error_response(request, 422, "invalid_request", message)

    @app.exception_handler(BifrostError)
    async def on_bifrost(request: Request, exc: BifrostError) -> Response:
        status, code = status_for(exc)
        if status >= 500:
            log.warning("%s %s: %s", request.method, request.url.path, exc)
        return error_response(request, status, code, str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> Response:
        message = "no such page" if exc.status_code == 404 else str(exc.detail)
        return error_response(request, exc.status_code, "http_error" if exc.status_code != 404 else "not_found", message)

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> Response:
        ref = uuid.uuid4().hex[:8]
        log.error("unhandled error %s on %s %s", ref, request.method, request.url.path, exc_info=exc)
        return error_response(request, 500, "internal_error", f"internal error (reference {ref}); the server log has the details")


def create_app(bifrost: Bifrost, corpora: Sequence[str] | None = None) -> FastAPI:
    """The web app over an injected facade; ``corpora`` limits what is served (default: all ingested)."""
    app = FastAPI(
        title="Bifrost", version="0.1.0",
        description="Questions over regulations answered from a dual knowledge graph, every statement cited.",
    )
    app.state.web = WebState(bifrost, corpora)
    app.state.templates = make_templates()
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(api.router)
    app.include_router(pages.router)
    add_error_handlers(app)
    return app
