"""`bifrost serve`: the web app and JSON API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bifrost.app.cli.common import serve_with
from bifrost.app.cli.console import err

if TYPE_CHECKING:
    from bifrost.app.facade import Bifrost


def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    corpus: Annotated[Optional[list[str]], typer.Option("--corpus", "-c", help="Corpus to serve (repeatable; default: every ingested corpus)")] = None,
    warm: Annotated[bool, typer.Option("--warm/--no-warm", help="Load models and indexes before accepting requests")] = True,
) -> None:
    """Serve the web app and JSON API (uvicorn); models load once at startup."""
    def run(bf: Bifrost) -> None:
        from bifrost.app.web.server import serve as run_server

        err.print(f"serving on http://{host}:{port} (warming up models first)" if warm else f"serving on http://{host}:{port}")
        run_server(bf, host=host, port=port, corpora=corpus or None, warm=warm)

    serve_with(ctx, "web", corpus, run)
