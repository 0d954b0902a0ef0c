"""`bifrost serve`: the web app and JSON API."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from bifrost.app.cli.common import facade, fail
from bifrost.app.cli.console import err
from bifrost.core.errors import BifrostError


def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    corpus: Annotated[Optional[list[str]], typer.Option("--corpus", "-c", help="Corpus to serve (repeatable; default: every ingested corpus)")] = None,
    warm: Annotated[bool, typer.Option("--warm/--no-warm", help="Load models and indexes before accepting requests")] = True,
) -> None:
    """Serve the web app and JSON API (uvicorn); models load once at startup."""
    from bifrost.core.extras import require_extra

    try:
        require_extra("web")
    except BifrostError as e:
        fail(e)
    from bifrost.app.web.server import serve as run_server

    bf = facade(ctx)
    try:
        for name in corpus or []:
            bf.require_corpus(name)
        err.print(f"serving on http://{host}:{port} (warming up models first)" if warm else f"serving on http://{host}:{port}")
        run_server(bf, host=host, port=port, corpora=corpus or None, warm=warm)
    except BifrostError as e:
        fail(e)
    finally:
        bf.close()
