"""`bifrost export neo4j`: both graphs into Neo4j for Neo4j Browser."""

from __future__ import annotations

import typer

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, with_bifrost
from bifrost.app.cli.console import out

export_app = typer.Typer(help="Export graphs to other stores.", no_args_is_help=True)


@export_app.command("neo4j")
def export_neo4j_cmd(ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False) -> None:
    """Write both graphs of a corpus to Neo4j (BIFROST_NEO4J_URI) for Neo4j Browser."""
    result = with_bifrost(ctx, lambda bf: bf.export_neo4j(corpus))
    if as_json:
        emit_json(result)
        return
    st = result["stats"]
    out.print(
        f"exported [bold]{corpus}[/bold] to Neo4j: nodes {st['nodes_by_kind']}, edges {st['edges_by_type']}, "
        f"{result['entities']['entities']} entities; open http://127.0.0.1:7474/browser/"
    )
