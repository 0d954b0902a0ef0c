"""`bifrost ingest` and `bifrost download`: sources into the SQL store and the navigator graph."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, facade, fail, progress_bar, with_bifrost
from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError
from bifrost.core.types import IngestReport


def ingest(
    ctx: typer.Context,
    paths: Annotated[
        Optional[list[Path]],
        typer.Argument(help="Source files (eCFR JSON/XML, HTML, PDF); default: the corpus's known sources"),
    ] = None,
    corpus: CorpusOpt = "osha-1926",
    graph: Annotated[
        bool, typer.Option("--graph/--no-graph", help="Build the navigator graph after ingesting")
    ] = True,
    edition_date: Annotated[
        Optional[str],
        typer.Option(
            "--edition-date",
            help="Date (YYYY-MM-DD) from which this edition is valid; default: the date the sources state, "
            "else today",
        ),
    ] = None,
    allow_older: Annotated[
        bool, typer.Option("--allow-older", help="Record an edition dated before the corpus's current one")
    ] = False,
    index: Annotated[
        bool,
        typer.Option(
            "--index/--no-index",
            help="Write the search indexes now (embedding every provision: minutes for a whole rulebook "
            "on 2 cores), so that the first question answers as fast as the second (with --graph)",
        ),
    ] = True,
    as_json: JsonOpt = False,
) -> None:
    """Read regulation sources into the SQL store as a new edition of the corpus and update the
    Document Navigator Graph. Changed provisions keep their previous version; provisions a source
    no longer has are retired (see `bifrost diff`)."""
    bf = facade(ctx)
    try:
        with progress_bar() as bar:
            task = bar.add_task("ingest", total=len(paths) if paths else None)
            report = bf.ingest(
                corpus,
                paths,
                progress=lambda _p: bar.advance(task),
                date=edition_date,
                allow_older=allow_older,
                navigator=graph,
            )
            if graph and index and report.files_ok:
                bar.update(task, visible=False)
                bar.add_task(f"index {corpus}: embedding its provisions for search", total=None)
                bf.write_indexes(corpus)
        for line in report.errors:
            err.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
        if not report.files_ok:
            raise typer.Exit(1)
        nav = report.navigator
    except BifrostError as e:
        fail(e)
    finally:
        bf.close()
    if as_json:
        emit_json(
            {
                "ingest": report.model_dump(exclude={"navigator"}),
                "navigator": nav.model_dump() if nav else None,
            }
        )
        return
    print_ingest(report, corpus)


def print_ingest(report: IngestReport, corpus: str) -> None:
    """What an ingest did: files, provisions added, updated and retired, the edition, the navigator graph."""
    nav = report.navigator
    out.print(
        f"[green]ingested[/green] {len(report.files_ok)} file(s) into [bold]{corpus}[/bold]: "
        f"{report.added} added, {len(report.updated)} updated, {len(report.removed)} retired, "
        f"{report.unchanged} unchanged, "
        f"{report.verified} verified, {report.review_items} new review item(s)"
    )
    if report.updated:
        out.print(
            f"updated: {', '.join(report.updated[:20])}{' ...' if len(report.updated) > 20 else ''}",
            markup=False,
        )
    if report.edition:
        e = report.edition
        out.print(
            f"edition {e.number} of {corpus}, valid from {e.date} (see `bifrost diff --corpus {corpus}`)",
            markup=False,
        )
    else:
        out.print("no change: no new edition recorded", markup=False)
    if report.removed:
        out.print(
            f"retired: {', '.join(report.removed[:20])}{' ...' if len(report.removed) > 20 else ''}",
            markup=False,
        )
    if report.oddities:
        out.print(
            f"[yellow]{len(report.oddities)} oddities[/yellow] (see --json): "
            f"{escape('; '.join(report.oddities[:3]))}"
        )
    if nav:
        out.print(
            f"navigator graph: {nav.sections} sections, {nav.has_edges} HAS, "
            f"{nav.refers_to_edges} REFERS_TO, {nav.dangling} dangling references; "
            f"{nav.sections_removed} sections and {nav.edges_removed} edges removed ({nav.seconds:.1f} s)"
        )


def download(
    ctx: typer.Context,
    part: Annotated[str, typer.Option(help="CFR part, e.g. 1926")] = "1926",
    title: Annotated[int, typer.Option(help="CFR title")] = 29,
    date: Annotated[str, typer.Option(help="eCFR edition date (YYYY-MM-DD) or 'current'")] = "current",
) -> None:
    """Download a CFR part as eCFR XML (needs internet; cached under $BIFROST_HOME/downloads)."""
    path = with_bifrost(ctx, lambda bf: bf.download(part, title, date))
    out.print(str(path))
