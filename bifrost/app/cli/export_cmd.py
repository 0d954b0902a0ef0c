"""`bifrost export neo4j`: both graphs into Neo4j for Neo4j Browser."""

from __future__ import annotations

import os
from urllib.parse import urlparse

import typer

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, settings_of, with_bifrost
from bifrost.app.cli.console import out

export_app = typer.Typer(help="Export graphs to other stores.", no_args_is_help=True)


@export_app.command("neo4j")
def export_neo4j_cmd(ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False) -> None:
    """Write both graphs of a corpus to Neo4j (BIFROST_NEO4J_URI) for Neo4j Browser."""
    result = with_bifrost(ctx, lambda bf: bf.export_neo4j(corpus))
    if as_json:
        emit_json(result)
        return
    st = result.stats
    out.print(
        f"exported [bold]{corpus}[/bold] to Neo4j: nodes {st.nodes_by_kind}, edges {st.edges_by_type}, "
        f"{result.entities['entities']} entities; open {browser_url(settings_of(ctx).neo4j_uri)}"
    )


def browser_url(bolt_uri: str | None) -> str:
    """Neo4j Browser beside a Bolt URI: same host, HTTP port BIFROST_NEO4J_HTTP_PORT (the launcher's;
    7474)."""
    host = urlparse(bolt_uri or "bolt://127.0.0.1:7687").hostname or "127.0.0.1"
    return f"http://{host}:{os.environ.get('BIFROST_NEO4J_HTTP_PORT', '7474')}/browser/"
