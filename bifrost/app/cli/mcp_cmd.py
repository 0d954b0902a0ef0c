"""`bifrost mcp`: serve one home to assistants over the Model Context Protocol (stdio or HTTP)."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from bifrost.app.cli.common import serve_with
from bifrost.app.cli.console import err
from bifrost.app.mcp.ports import MCP_PORT, TOOLS

if TYPE_CHECKING:
    from bifrost.app.facade import Bifrost


class Transport(str, Enum):
    stdio = "stdio"
    http = "http"


def mcp(
    ctx: typer.Context,
    transport: Annotated[
        Transport,
        typer.Option(help="stdio (an assistant starts this command) or http (streamable HTTP at /mcp)"),
    ] = Transport.stdio,
    host: Annotated[str, typer.Option(help="Interface to listen on (http)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port (http)")] = MCP_PORT,
    corpus: Annotated[
        Optional[list[str]],
        typer.Option("--corpus", "-c", help="Corpus to serve (repeatable; default: every ingested corpus)"),
    ] = None,
    warm: Annotated[
        bool, typer.Option("--warm/--no-warm", help="Load models and indexes before accepting calls")
    ] = True,
    page_size: Annotated[
        int, typer.Option(min=1, max=1000, help="Provisions per page of the resource listing")
    ] = 100,
) -> None:
    """Serve the read-only tools and provision resources over MCP."""

    def run(bf: Bifrost) -> None:
        from bifrost.app.mcp.server import serve

        if transport is Transport.http:
            err.print(f"MCP server on http://{host}:{port}/mcp", highlight=False)
        serve(
            bf, transport.value, host=host, port=port, corpora=corpus or None, warm=warm, page_size=page_size
        )

    serve_with(ctx, "mcp", corpus, run)


mcp.__doc__ = (
    f"Serve the {len(TOOLS)} read-only tools ({', '.join(TOOLS)}) and provision resources over MCP "
    f"(stdio, or HTTP on port {MCP_PORT} by default)."
)
