"""The Bifrost web application: `create_app(bifrost)` wires pages, JSON API, limits and error mapping.

The facade is injected; the app keeps it on `app.state.web` (no module globals). Request bodies
are limited before parsing and clients optionally rate-limited (`limits.py`); a `BifrostError`
becomes an HTTP error (JSON under /api, an HTML page elsewhere) whose message never carries
credentials, URLs, SQL or server paths; anything unexpected is logged under a reference id and
answered with a clean 500 (`errors.py`).
"""

from __future__ import annotations

from bifrost import __version__

import logging
import os
from collections.abc import Sequence
from pathlib import Path

import jinja2
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from bifrost.app.facade import Bifrost
from bifrost.app.web import api, auth, pages
from bifrost.app.web.auth import AuthMiddleware
from bifrost.app.http.security import SecurityHeadersMiddleware, sending_with
from bifrost.app.web.errors import add_error_handlers, status_for
from bifrost.app.http.limits import ASGIApp, BodyLimitMiddleware, RateLimitMiddleware, Receive, Scope, Send
from bifrost.app.web.service import WebState
from bifrost.app.web.views import entity_url, provision_url

__all__ = ["create_app", "make_templates", "status_for"]

log = logging.getLogger(__name__)
HERE = Path(__file__).parent


def make_templates() -> Jinja2Templates:
    """Jinja2 templates with autoescaping always on and the URL helpers as globals."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(provision_url=provision_url, entity_url=entity_url)
    return Jinja2Templates(env=env)


WORKER_HEADER = b"x-bifrost-worker"


class WorkerPidMiddleware:
    """Every HTTP response names the process that served it (``X-Bifrost-Worker: <pid>``), so an
    operator or a test can see how `serve --workers N` spreads requests."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        pid = str(os.getpid()).encode()  # read per request: the app is built before workers fork
        await self.app(scope, receive, sending_with(send, [(WORKER_HEADER, pid)]))


def create_app(
    bifrost: Bifrost, corpora: Sequence[str] | None = None, require_auth: bool | None = None
) -> FastAPI:
    """The web app over an injected facade; ``corpora`` limits what is served (default: all ingested);
    ``require_auth`` checks tokens and sessions (default: when BIFROST_AUTH=tokens; `serve` decides by the
    address it binds, see `bifrost.app.team.policy`).

    ``BIFROST_MAX_BODY_BYTES`` and ``BIFROST_RATE_LIMIT`` come from the facade's settings."""
    settings = bifrost.settings
    required = settings.auth == "tokens" if require_auth is None else require_auth
    app = FastAPI(
        title="Bifrost",
        version=__version__,
        description="Questions over regulations answered from a dual knowledge graph, every statement cited.",
    )
    app.state.web = WebState(bifrost, corpora, required)
    app.state.templates = make_templates()
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.include_router(api.router)
    app.include_router(auth.router)
    app.include_router(pages.router)
    add_error_handlers(app)
    # added innermost first: headers > worker pid > who is asking > their rate limit > body limit > routes
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    rule = settings.rate_limit_rule
    if rule is not None:  # before the body is read: a throttled client costs nothing more
        app.add_middleware(RateLimitMiddleware, requests=rule[0], per_seconds=rule[1])
        log.info("rate limit: %d requests per %g s per token (per client address without one)", *rule)
    app.add_middleware(
        AuthMiddleware,
        users=bifrost.users if required else None,
        sessions=app.state.web.sessions,
        required=required,
    )
    app.add_middleware(WorkerPidMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)
    log.info("authentication %s", "on: tokens or a login" if required else "off (one local user)")
    return app
