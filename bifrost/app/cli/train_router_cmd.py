"""`bifrost train router`: learn which corpus of a home answers a question, from its answered questions.

Registered on the `train` group by `bifrost.app.cli.train_cmd.make_train_app`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from bifrost.app.cli.common import JsonOpt, emit_json, fail_message, with_bifrost
from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError


def train_router(
    ctx: typer.Context,
    corpora: Annotated[
        str, typer.Option("--corpus", "-c", help="The corpora it chooses among: 'all' or a,b")
    ] = "all",
    questions: Annotated[
        list[Path],
        typer.Option(
            "--questions", "-q", help="Question file to score the router on (never fitted on); repeatable"
        ),
    ] = [],  # noqa: B006 - typer reads the default
    default_corpus: Annotated[
        Optional[str],
        typer.Option(help="The corpus answering a question file's answerable questions that name none"),
    ] = None,
    since: Annotated[
        Optional[int],
        typer.Option(
            help="Validate forward: fit on questions answered before this year, score those since (default: "
            "the year two thirds were answered by)"
        ),
    ] = None,
    store: Annotated[
        bool,
        typer.Option("--store/--no-store", help="Store the router in the home (--no-store: figures only)"),
    ] = True,
    as_json: JsonOpt = False,
) -> None:
    """Learn which rulebook of the home answers a question from the regulator's answered questions (their
    titles, labelled by the corpora holding what they cite): validated forward in time and on the question
    files, then fitted on every answered question and stored. `ask` then asks the likeliest corpus (and any
    other more likely than not)."""
    try:
        report = with_bifrost(
            ctx,
            lambda bf: bf.train_router(
                questions,
                corpora,
                default_corpus=default_corpus,
                since=since,
                store=store,
                say=lambda m: err.print(m, highlight=False),
            ),
        )
    except (BifrostError, ValueError) as e:
        fail_message(str(e))
    if as_json:
        emit_json(report.as_dict())
        return
    out.print(figure_table(report), highlight=False)
    out.print(f"stored in {report.path}" if report.path else "nothing stored (--no-store)", highlight=False)


def figure_table(report) -> Table:
    """Forward in time, then each question file: the likeliest corpus right, and how well its probability
    tells the questions no corpus answers."""
    table = Table(
        title=f"corpus router: {report.letters} answered questions (forward: fitted before {report.since})"
    )
    for col in ("scored on", "questions", "likeliest right", "AUROC: no corpus against some"):
        table.add_column(col, justify="left" if col == "scored on" else "right")
    rows = {f"answered since {report.since}": report.forward, **report.sets}
    for name, f in rows.items():
        cells = [f.get(k) for k in ("first_right", "auroc_none")]
        table.add_row(name, str(f["questions"]), *("–" if v is None else f"{v:.3f}" for v in cells))
    return table
