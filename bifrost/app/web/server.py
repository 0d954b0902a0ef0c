"""Run the web app with uvicorn: models load and each served corpus is warmed up once at startup."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bifrost.app.facade import Bifrost
from bifrost.app.team.policy import auth_required
from bifrost.app.web.app import create_app

log = logging.getLogger(__name__)


def serve(
    bifrost: Bifrost,
    host: str = "127.0.0.1",
    port: int = 8000,
    corpora: Sequence[str] | None = None,
    warm: bool = True,
    log_level: str = "info",
) -> None:
    """Build the app over ``bifrost``, warm up its retrievers, and serve until interrupted."""
    import uvicorn

    app = create_app(bifrost, corpora, auth_required(bifrost.settings, host, bifrost.users))
    if warm:
        ready = app.state.web.warm_up()
        log.info("warm-up done: %s", ready)
    uvicorn.run(app, host=host, port=port, log_level=log_level)
