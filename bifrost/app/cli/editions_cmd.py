"""`bifrost editions` and `bifrost diff`: the recorded editions of a corpus and what changed between two."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, with_bifrost
from bifrost.app.cli.console import out

if TYPE_CHECKING:  # pragma: no cover - `--help` must not import the store
    from bifrost.core.store.edition_diff import EditionDiff

EditionOpt = Annotated[
    Optional[str], typer.Option(help="Edition number, or a date (YYYY-MM-DD): the edition valid on it")
]
SHOWN = 20  # items listed per section in the text output (all of them with --json)


def editions(ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False) -> None:
    """List the editions of a corpus: number, date, sources, provisions added, changed and removed."""
    eds = with_bifrost(ctx, lambda bf: bf.editions(corpus))
    if as_json:
        emit_json([e.model_dump() for e in eds])
        return
    if not eds:
        out.print(f"{corpus}: no edition recorded (ingested before editions were kept)", highlight=False)
        return
    table = Table(title=f"editions of {corpus}")
    for col in ("edition", "date", "added", "changed", "removed", "sources"):
        table.add_column(
            col, justify="right" if col in ("edition", "added", "changed", "removed") else "left"
        )
    for e in eds:
        table.add_row(
            str(e.number), e.date or "", str(e.added), str(e.changed), str(e.removed), ", ".join(e.sources)
        )
    out.print(table)


def diff(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    since: Annotated[
        Optional[str],
        typer.Option("--from", help="Older edition: number or date (default: the one before --to)"),
    ] = None,
    to: Annotated[
        Optional[str], typer.Option("--to", help="Newer edition: number or date (default: the current one)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """What changed between two editions: provisions added, removed, moved and changed (word diff),
    REFERS_TO added and removed, citations left dangling by a repeal, entities added and removed."""
    d = with_bifrost(ctx, lambda bf: bf.diff(corpus, since, to))
    if as_json:
        emit_json(d.model_dump(mode="json"))
        return
    print_diff(d)


def _listing(title: str, items: list[str]) -> None:
    if not items:
        return
    more = f" ... and {len(items) - SHOWN} more (see --json)" if len(items) > SHOWN else ""
    out.print(
        f"[bold]{title}[/bold] ({len(items)}): " + escape(", ".join(items[:SHOWN])) + more, highlight=False
    )


def print_diff(d: EditionDiff) -> None:
    """The diff as text: dangling alerts first (what a compliance engineer must act on)."""
    a, b = d.from_edition, d.to_edition
    out.print(
        f"[bold]{d.corpus}[/bold]: edition {a.number} ({a.date or 'undated'}) -> {b.number} "
        f"({b.date or 'undated'})"
    )
    for alert in d.newly_dangling:
        out.print(
            f"[red]dangling:[/red] {escape(alert.source)} cites {escape(alert.text)!s}, which was "
            f"{escape(alert.was_target)} ({alert.target_status})",
            highlight=False,
        )
    _listing("added", d.added)
    _listing("removed", d.removed)
    _listing("moved", [f"{m.old_id} -> {m.new_id}" for m in d.moved])
    for c in d.changed[:SHOWN]:
        out.print(f"[yellow]changed[/yellow] {escape(c.id)} ({', '.join(c.fields)})", highlight=False)
        if c.text_diff:
            out.print(f"    {escape(c.text_diff)}", highlight=False)
    if len(d.changed) > SHOWN:
        out.print(f"... and {len(d.changed) - SHOWN} more changed (see --json)")
    _listing("REFERS_TO added", [f"{r.source} -> {r.target}" for r in d.refers_to_added])
    _listing("REFERS_TO removed", [f"{r.source} -> {r.target}" for r in d.refers_to_removed])
    if d.entities_added is None:
        out.print("[dim]entities: not compared (the entity network was not built in both editions)[/dim]")
    else:
        _listing("entities added", d.entities_added)
        _listing("entities removed", d.entities_removed or [])
