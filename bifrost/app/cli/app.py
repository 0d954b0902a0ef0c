"""The `bifrost` command line: a thin Typer layer over the `Bifrost` facade.

Every command has readable output by default and ``--json`` for machines; a `BifrostError`
becomes a one-line message on stderr and a non-zero exit code. Each command group lives in its
own module (``*_cmd.py``); this module only assembles them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from bifrost.app.cli import fast_exit
from bifrost.app.cli.answers_cmd import answers_app
from bifrost.app.cli.ask_cmd import ask
from bifrost.app.cli.build_cmd import build_app
from bifrost.app.cli.common import configure_logging
from bifrost.app.cli.console import err
from bifrost.app.cli.db_cmd import db_app
from bifrost.app.cli.editions_cmd import diff, editions
from bifrost.app.cli.eval_cmd import eval_app
from bifrost.app.cli.export_cmd import export_app
from bifrost.app.cli.graph_cmd import graph_app, review_app
from bifrost.app.cli.ingest_cmd import download, ingest
from bifrost.app.cli.mcp_cmd import mcp
from bifrost.app.cli.precedents_cmd import precedents_app
from bifrost.app.cli.serve_cmd import serve
from bifrost.app.cli.train_cmd import make_train_app
from bifrost.app.cli.users_cmd import users_app
from bifrost.core.settings import Settings


def main_options(
    ctx: typer.Context,
    home: Annotated[
        Optional[Path], typer.Option(help="State folder (default $BIFROST_HOME or ~/.bifrost)")
    ] = None,
    store: Annotated[Optional[str], typer.Option(help="Graph store: embedded or neo4j")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details")] = False,
) -> None:
    """Global options (before the command): state folder, graph store, verbosity."""
    if isinstance(ctx.obj, fast_exit.FastExit):  # given by the console entry point (`main`)
        fast_exit.attach(ctx, ctx.obj)
    configure_logging(verbose)
    overrides: dict[str, Any] = {}
    if home:
        overrides["home"] = home
    if store:
        overrides["store"] = store
    ctx.obj = Settings(**overrides)


def make_app() -> typer.Typer:
    """The root command with every command group attached."""
    root = typer.Typer(
        help="Bifrost: dual knowledge-graph question answering over regulations.", no_args_is_help=True
    )
    root.callback()(main_options)
    root.command()(ingest)
    root.command()(ask)
    root.command()(download)
    root.command()(editions)
    root.command()(diff)
    root.command()(serve)
    root.command()(mcp)
    root.add_typer(graph_app, name="graph")
    root.add_typer(review_app, name="review")
    root.add_typer(build_app, name="build")
    root.add_typer(export_app, name="export")
    root.add_typer(eval_app, name="eval")
    root.add_typer(make_train_app(), name="train")
    root.add_typer(db_app, name="db")
    root.add_typer(precedents_app, name="precedents")
    root.add_typer(users_app, name="users")
    root.add_typer(answers_app, name="answers")
    return root


app = make_app()


def main() -> None:
    """Entry point of the console script (a finished `ask` ends without interpreter teardown, see
    `fast_exit`)."""
    quick = fast_exit.FastExit()
    try:
        app(obj=quick)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except SystemExit as e:
        if isinstance(e.code, int) or e.code is None:
            quick.exit_if_requested(e.code or 0)
        raise


if __name__ == "__main__":
    main()
