"""`bifrost graph ...` and `bifrost review ...`: read both graphs and the review queue."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, settings_of, with_bifrost
from bifrost.app.cli.review_answers_cmd import review_answer, review_answers, review_export
from bifrost.app.cli.console import out

graph_app = typer.Typer(help="Inspect and build the graphs.", no_args_is_help=True)
review_app = typer.Typer(
    help="Review items (provisions on which two sources disagree) and reviews of answers.",
    no_args_is_help=True,
)


@graph_app.command("build")
def graph_build(ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False) -> None:
    """Rebuild the Document Navigator Graph of an ingested corpus."""
    nav = with_bifrost(ctx, lambda bf: bf.build_navigator(corpus))
    if as_json:
        emit_json(nav.model_dump())
    else:
        out.print(nav.model_dump())


@graph_app.command("stats")
def graph_stats(ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False) -> None:
    """Nodes by kind, edges by type and dangling references of a corpus graph."""
    st = with_bifrost(ctx, lambda bf: bf.stats(corpus))
    if as_json:
        emit_json(st.model_dump())
        return
    table = Table(title=f"graph of {corpus}")
    table.add_column("what")
    table.add_column("count", justify="right")
    for kind, n in st.nodes_by_kind.items():
        table.add_row(f"nodes: {kind}", str(n))
    for etype, n in st.edges_by_type.items():
        table.add_row(f"edges: {etype}", str(n))
    table.add_row("dangling references", str(st.dangling_references))
    table.add_row("entities", str(st.entities))
    table.add_row("relations", str(st.relations))
    out.print(table)
    for note in st.notes:
        out.print(f"note: {note}")


@graph_app.command("check")
def graph_check(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    store: Annotated[
        Optional[str],
        typer.Option(help="Graph store to check: embedded or neo4j (default: the configured one)"),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Compare the SQL store with the graph store (section ids, HAS, REFERS_TO, entities, MENTIONED_IN,
    RELATES); exits 1 on any difference."""
    if store:
        settings = settings_of(ctx)
        ctx.find_root().obj = settings.model_copy(update={"store": store})
    report = with_bifrost(ctx, lambda bf: bf.check(corpus))
    if as_json:
        emit_json({**report.model_dump(), "ok": report.ok})
    else:
        table = Table(title=f"{corpus}: SQL store vs graph store")
        for col in ("item", "sql", "graph"):
            table.add_column(col, justify="left" if col == "item" else "right")
        for item, (n_sql, n_graph) in report.counts.items():
            table.add_row(item, str(n_sql), str(n_graph), style=None if n_sql == n_graph else "red")
        out.print(table)
        for d in report.differences:
            out.print(
                f"[red]{d.item}[/red]: {d.missing_count} missing in the graph store "
                f"{escape(', '.join(d.missing_in_graph))}; {d.extra_count} extra "
                f"{escape(', '.join(d.extra_in_graph))}",
                highlight=False,
            )
        out.print(
            "[green]consistent[/green]"
            if report.ok
            else f"[red]{len(report.differences)} difference(s)[/red]"
        )
    if not report.ok:
        raise typer.Exit(1)


@graph_app.command("show")
def graph_show(
    ctx: typer.Context,
    provision_id: Annotated[str, typer.Argument(help="Provision id, e.g. 1926.502(k)")],
    corpus: CorpusOpt = "osha-1926",
    as_of: Annotated[
        Optional[str],
        typer.Option(
            "--as-of", help="Show it as it stood on this date (YYYY-MM-DD) or in this edition number"
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """A provision: text, heading, parent, children, references out and in, earlier versions."""
    view = with_bifrost(ctx, lambda bf: bf.show(corpus, provision_id, as_of))
    if as_json:
        emit_json(view.model_dump(mode="json"))
        return
    p = view.provision
    if view.edition:
        out.print(f"[yellow]as of edition {view.edition.number} ({view.edition.date or 'undated'})[/yellow]")
    out.print(f"[bold]{escape(p.id)}[/bold] ({p.kind.value}) {escape(p.heading)}", highlight=False)
    if p.text:
        out.print(p.text, highlight=False, markup=False)
    if p.url:
        out.print(p.url, highlight=False, markup=False)
    if view.parent:
        out.print(f"parent: {view.parent.id} {view.parent.heading}", highlight=False, markup=False)
    if view.children:
        out.print("children: " + ", ".join(c.id for c in view.children), highlight=False, markup=False)
    for r in view.references_out:
        out.print(f"refers to: {escape(r['id'])}  [dim]({escape(r['text'] or '')})[/dim]", highlight=False)
    for r in view.references_in:
        out.print(
            f"referred to by: {escape(r['id'])}  [dim]({escape(r['text'] or '')})[/dim]", highlight=False
        )
    for r in view.dangling_references:
        out.print(
            f"[yellow]dangling:[/yellow] {escape(r['raw'])} [dim]({escape(r['reason'] or '')})[/dim]",
            highlight=False,
        )
    for h in view.history:
        out.print(
            f"[magenta]{h['change']} in edition {h['valid_to']}[/magenta] ({h['until'] or 'undated'}); "
            "before: "
            f"{escape(h['diff'] or h['text'])}",
            highlight=False,
        )


@graph_app.command("entity")
def graph_entity(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Entity name, e.g. excavation")],
    corpus: CorpusOpt = "osha-1926",
    as_json: JsonOpt = False,
) -> None:
    """An entity of the Entity Network: its provisions and relations."""
    view = with_bifrost(ctx, lambda bf: bf.entity_view(corpus, name))
    if as_json:
        emit_json(view)
        return
    note = "" if view.name == name else f" [dim](closest to {name!r})[/dim]"
    out.print(f"[bold]{escape(view.name)}[/bold] {escape(view.label)}{note}", highlight=False)
    out.print(
        f"mentioned in {len(view.provisions)} provisions: " + ", ".join(view.provisions[:30]),
        highlight=False,
        markup=False,
    )
    for r in view.relations[:40]:
        out.print(
            f"  {r.head} --{r.relation}--> {r.tail}  {', '.join(r.provisions[:5])}",
            highlight=False,
            markup=False,
        )


@review_app.command("list")
def review_list(
    ctx: typer.Context,
    corpus: Annotated[Optional[str], typer.Option("--corpus", "-c", help="Only this corpus")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Open review items: provisions whose text differs between two sources."""
    items = with_bifrost(ctx, lambda bf: bf.review_items(corpus))
    if as_json:
        emit_json([{"id": i, **it.model_dump()} for i, it in items])
        return
    if not items:
        out.print("no open review items")
    for i, it in items:
        out.print(
            f"[bold]#{i}[/bold] {escape(f'{it.corpus} {it.provision_id}: {it.source_a} vs {it.source_b}')} "
            f"(similarity {it.ratio:.2f})",
            highlight=False,
        )
        out.print(it.diff, highlight=False, markup=False)


review_app.command("answer")(review_answer)
review_app.command("answers")(review_answers)
review_app.command("export")(review_export)
