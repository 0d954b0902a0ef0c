"""`bifrost serve`: the web app and JSON API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bifrost.app.cli.common import fail_message, serve_with
from bifrost.app.cli.console import err

if TYPE_CHECKING:
    from bifrost.app.facade import Bifrost


def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    corpus: Annotated[
        Optional[list[str]],
        typer.Option("--corpus", "-c", help="Corpus to serve (repeatable; default: every ingested corpus)"),
    ] = None,
    warm: Annotated[
        bool, typer.Option("--warm/--no-warm", help="Load models and indexes before accepting requests")
    ] = True,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            "-w",
            help="Worker processes (1: one uvicorn process; more: gunicorn forks them after loading models "
            "and indexes once, so they share that memory; about one per CPU core)",
        ),
    ] = 1,
) -> None:
    """Serve the web app and JSON API (uvicorn); models load once at startup."""
    if workers < 1:
        fail_message(f"--workers must be 1 or more (got {workers})")

    def run(bf: Bifrost) -> None:
        where = f"serving on http://{host}:{port}" + (f" with {workers} workers" if workers > 1 else "")
        err.print(f"{where} (warming up models first)" if warm else where)
        if workers == 1:
            from bifrost.app.web.server import serve as run_server

            run_server(bf, host=host, port=port, corpora=corpus or None, warm=warm)
            return
        from bifrost.app.web.workers import serve_workers

        serve_workers(bf, host=host, port=port, workers=workers, corpora=corpus or None, warm=warm)

    serve_with(ctx, "web", corpus, run)
