"""The `bifrost` command line: a thin Typer layer over the `Bifrost` facade.

Every command has readable output by default and ``--json`` for machines; a `BifrostError`
becomes a one-line message on stderr and a non-zero exit code.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from enum import Enum
from pathlib import Path
from collections.abc import Callable
from typing import Annotated, Any, NoReturn, Optional, TypeVar

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bifrost.errors import BifrostError
from bifrost.facade import Bifrost
from bifrost.settings import Settings

T = TypeVar("T")

app = typer.Typer(help="Bifrost: dual knowledge-graph question answering over regulations.", no_args_is_help=True)
graph_app = typer.Typer(help="Inspect and build the graphs.", no_args_is_help=True)
review_app = typer.Typer(help="Review items: provisions on which two sources disagree.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")
build_app = typer.Typer(help="Build graphs of an ingested corpus.", no_args_is_help=True)
app.add_typer(review_app, name="review")
app.add_typer(build_app, name="build")

from bifrost.cli.console import err, out

CorpusOpt = Annotated[str, typer.Option("--corpus", "-c", help="Corpus name, e.g. osha-1926")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines")]


@app.callback()
def main_options(
    ctx: typer.Context,
    home: Annotated[Optional[Path], typer.Option(help="State folder (default $BIFROST_HOME or ~/.bifrost)")] = None,
    store: Annotated[Optional[str], typer.Option(help="Graph store: embedded or neo4j")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log details")] = False,
) -> None:
    configure_logging(verbose)
    overrides: dict[str, Any] = {}
    if home:
        overrides["home"] = home
    if store:
        overrides["store"] = store
    ctx.obj = Settings(**overrides)


def configure_logging(verbose: bool) -> None:
    """One handler on stderr; libraries that turn themselves up (bm25s sets DEBUG on import) and
    model-loading progress bars are kept quiet unless --verbose."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        import bm25s  # noqa: F401  (imported first: it sets its own level on import)
    except ImportError:
        pass
    logging.getLogger("bm25s").setLevel(logging.NOTSET)
    if not verbose:
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # read by transformers when it loads


def settings_of(ctx: typer.Context) -> Settings:
    """The settings the main options built (read from the root context)."""
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = Settings()
    return root.obj


def facade(ctx: typer.Context) -> Bifrost:
    return Bifrost(settings_of(ctx))


def with_bifrost(ctx: typer.Context, action: Callable[[Bifrost], T]) -> T:
    """Run one action on a facade built from the context's settings; a BifrostError becomes a
    one-line message and exit code 1; the facade is closed either way."""
    bf = facade(ctx)
    try:
        return action(bf)
    except BifrostError as e:
        fail(e)
    finally:
        bf.close()


def emit_json(data: Any) -> None:
    out.print_json(json.dumps(data, default=str, ensure_ascii=False))


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=True, disable=not err.is_terminal,
    )


def fail(e: BifrostError, code: int = 1) -> NoReturn:
    err.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@app.command()
def ingest(
    ctx: typer.Context,
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Source files (eCFR JSON/XML, HTML, PDF); default: the corpus's known sources")] = None,
    corpus: CorpusOpt = "osha-1926",
    graph: Annotated[bool, typer.Option("--graph/--no-graph", help="Build the navigator graph after ingesting")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Read regulation sources into the SQL store and build the Document Navigator Graph."""
    bf = facade(ctx)
    try:
        with progress_bar() as bar:
            task = bar.add_task("ingest", total=len(paths) if paths else None)
            report = bf.ingest(corpus, paths, progress=lambda _p: bar.advance(task))
        for line in report.errors:
            err.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
        if not report.files_ok:
            raise typer.Exit(1)
        nav = bf.build_navigator(corpus) if graph else None
    except BifrostError as e:
        fail(e)
    finally:
        bf.close()
    if as_json:
        emit_json({"ingest": report.model_dump(), "navigator": nav.model_dump() if nav else None})
        return
    out.print(
        f"[green]ingested[/green] {len(report.files_ok)} file(s) into [bold]{corpus}[/bold]: "
        f"{report.added} added, {len(report.updated)} updated, {report.unchanged} unchanged, "
        f"{report.verified} verified, {report.review_items} new review item(s)"
    )
    if report.updated:
        out.print(f"updated: {', '.join(report.updated[:20])}{' ...' if len(report.updated) > 20 else ''}", markup=False)
    if report.oddities:
        out.print(f"[yellow]{len(report.oddities)} oddities[/yellow] (see --json): {escape('; '.join(report.oddities[:3]))}")
    if nav:
        out.print(
            f"navigator graph: {nav.sections} sections, {nav.has_edges} HAS, {nav.refers_to_edges} REFERS_TO, "
            f"{nav.dangling} dangling references ({nav.seconds:.1f} s)"
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


@graph_app.command("show")
def graph_show(
    ctx: typer.Context,
    provision_id: Annotated[str, typer.Argument(help="Provision id, e.g. 1926.502(k)")],
    corpus: CorpusOpt = "osha-1926",
    as_json: JsonOpt = False,
) -> None:
    """A provision: text, heading, parent, children, references out and in."""
    view = with_bifrost(ctx, lambda bf: bf.show(corpus, provision_id))
    if as_json:
        emit_json(view.model_dump(mode="json"))
        return
    p = view.provision
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
        out.print(f"referred to by: {escape(r['id'])}  [dim]({escape(r['text'] or '')})[/dim]", highlight=False)
    for r in view.dangling_references:
        out.print(f"[yellow]dangling:[/yellow] {escape(r['raw'])} [dim]({escape(r['reason'] or '')})[/dim]", highlight=False)


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
        out.print(f"[bold]#{i}[/bold] {escape(f'{it.corpus} {it.provision_id}: {it.source_a} vs {it.source_b}')} (similarity {it.ratio:.2f})", highlight=False)
        out.print(it.diff, highlight=False, markup=False)


@build_app.command("navigator")
def build_navigator_cmd(ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False) -> None:
    """Rebuild the Document Navigator Graph (same as `graph build`)."""
    graph_build(ctx, corpus, as_json)


class RefinerSearch(str, Enum):
    """The refiner's nearest-entity search (see graph_builders/entities/neighbours.py)."""

    auto = "auto"
    exact = "exact"
    lsh = "lsh"


@build_app.command("entities")
def build_entities_cmd(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    extractor: Annotated[str, typer.Option(help="offline (spaCy), llm (agents; needs BIFROST_LLM_MODEL) or auto")] = "auto",
    tau: Annotated[Optional[float], typer.Option(help="Refiner merge threshold (cosine); default from settings (0.95)")] = None,
    subparts: Annotated[Optional[str], typer.Option(help="Only these subparts, comma-separated (e.g. L,M,P,X)")] = None,
    search: Annotated[Optional[RefinerSearch], typer.Option(
        help="Refiner's nearest-entity search: exact, lsh (near-linear, may miss ~1/1000 merges at tau) or auto "
             "(exact up to 20,000 entities, then lsh); default from settings")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Build the Entity Network Graph: extract entities and relations, merge near-duplicates, embed."""
    bf = facade(ctx)
    try:
        with progress_bar() as bar:
            task = bar.add_task("entities", total=None)

            def tick(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = bf.build_entities(
                corpus, extractor, tau, progress=tick, subparts=subparts.split(",") if subparts else None,
                search=search.value if search else None,
            )
        usage = bf.usage_report() if bf.chat_model is not None else None
    except BifrostError as e:
        fail(e)
    finally:
        bf.close()
    if as_json:
        emit_json({**report.model_dump(), "usage": usage})
        return
    out.print(
        f"entity network of [bold]{corpus}[/bold] ({report.extractor}): {report.provisions_processed} provisions, "
        f"{report.entities} entities, {report.relations} relations ({report.relation_types} types), "
        f"{len(report.failed)} failed, {report.seconds:.1f} s"
    )
    for line in report.failed[:10]:
        err.print(f"[yellow]failed:[/yellow] {escape(line)}", highlight=False)
    if usage:
        out.print(f"model usage: {usage}")


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
    note = "" if view["name"] == name else f" [dim](closest to {name!r})[/dim]"
    out.print(f"[bold]{escape(view['name'])}[/bold] {escape(view['label'])}{note}", highlight=False)
    out.print(f"mentioned in {len(view['provisions'])} provisions: " + ", ".join(view["provisions"][:30]), highlight=False, markup=False)
    for r in view["relations"][:40]:
        out.print(f"  {r['head']} --{r['relation']}--> {r['tail']}  {', '.join(r['provisions'][:5])}", highlight=False, markup=False)


@app.command()
def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="A question about the regulations")],
    corpus: CorpusOpt = "osha-1926",
    as_json: JsonOpt = False,
    show_retrieved: Annotated[int, typer.Option("--retrieved", help="How many retrieved provisions to list")] = 10,
) -> None:
    """Answer a question; every statement cites provision ids, or the answer is a refusal."""
    answer = with_bifrost(ctx, lambda bf: bf.ask(question, corpus))
    if as_json:
        emit_json(answer.model_dump(mode="json"))
        return
    out.print(f"[bold]Q:[/bold] {escape(answer.question)}", highlight=False)
    mode = f"[dim]({answer.mode.value}, {answer.timings.get('total', 0):.2f} s)[/dim]"
    if answer.refused:
        out.print(f"[yellow]{answer.text}[/yellow] {mode}", highlight=False)
        if answer.unused:
            out.print("retrieved but not used: " + ", ".join(answer.unused[:show_retrieved]), highlight=False, markup=False)
        return
    out.print(f"[bold]A:[/bold] {mode}")
    for st in answer.statements:
        out.print(f"  {escape(st.text)} " + "".join(f"[cyan]{escape('[' + c + ']')}[/cyan]" for c in st.citations), highlight=False)
    out.print("\n[bold]Sources[/bold]")
    for c in answer.citations:
        out.print(f"  [cyan]{escape(c.id)}[/cyan] {escape(c.heading)} {c.url or ''}", highlight=False)
    out.print("\n[bold]Retrieved[/bold] (score, why)")
    for it in answer.retrieved[:show_retrieved]:
        out.print(f"  {escape(it.id):<28} {it.score:6.3f}  [dim]{escape(it.why)}[/dim]", highlight=False)


export_app = typer.Typer(help="Export graphs to other stores.", no_args_is_help=True)
app.add_typer(export_app, name="export")


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


@app.command()
def download(
    ctx: typer.Context,
    part: Annotated[str, typer.Option(help="CFR part, e.g. 1926")] = "1926",
    title: Annotated[int, typer.Option(help="CFR title")] = 29,
    date: Annotated[str, typer.Option(help="eCFR edition date (YYYY-MM-DD) or 'current'")] = "current",
) -> None:
    """Download a CFR part as eCFR XML (needs internet; cached under $BIFROST_HOME/downloads)."""
    from graph_builders.scrape.ecfr_download import download_part

    try:
        path = download_part(title, part, settings_of(ctx).home / "downloads", date=date)
    except BifrostError as e:
        fail(e)
    out.print(str(path))


@app.command()
def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    corpus: Annotated[Optional[list[str]], typer.Option("--corpus", "-c", help="Corpus to serve (repeatable; default: every ingested corpus)")] = None,
    warm: Annotated[bool, typer.Option("--warm/--no-warm", help="Load models and indexes before accepting requests")] = True,
) -> None:
    """Serve the web app and JSON API (uvicorn); models load once at startup."""
    from bifrost.web.server import serve as run_server

    bf = facade(ctx)
    try:
        for name in corpus or []:
            bf.require_corpus(name)
        err.print(f"serving on http://{host}:{port} (warming up models first)" if warm else f"serving on http://{host}:{port}")
        run_server(bf, host=host, port=port, corpora=corpus or None, warm=warm)
    except BifrostError as e:
        fail(e)
    finally:
        bf.close()


from bifrost.cli.eval_cmd import eval_app  # noqa: E402  (eval sub-app; imports app lazily)
app.add_typer(eval_app, name="eval")


def main() -> None:
    """Entry point of the console script."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
