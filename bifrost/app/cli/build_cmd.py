"""`bifrost build ...`: the navigator graph and the entity network of an ingested corpus."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer
from rich.markup import escape

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, facade, fail, fail_message, progress_bar
from bifrost.app.cli.console import err, out
from bifrost.app.cli.graph_cmd import graph_build
from bifrost.core.errors import BifrostError, EntityBuildAborted

build_app = typer.Typer(help="Build graphs of an ingested corpus.", no_args_is_help=True)


@build_app.command("navigator")
def build_navigator_cmd(
    ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False
) -> None:
    """Rebuild the Document Navigator Graph (same as `graph build`)."""
    graph_build(ctx, corpus, as_json)


@build_app.command("encoder")
def build_encoder_cmd(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Export the embedding model to ONNX in the home, so that onnxruntime encodes (made by the first
    `ingest`; run it again after a corrupt or missing export)."""
    try:
        report = facade(ctx).build_encoder()
    except BifrostError as e:
        fail(e)
    if as_json:
        emit_json(report)
        return
    if not report.path:
        out.print(
            "no ONNX export for this model or runtime (onnxruntime missing?): the home encodes in torch"
        )
        return
    out.print(f"exported to {escape(report.path)}: the home encodes on onnxruntime", highlight=False)
    for line in report.rebuild:
        out.print(f"  vectors made by the other runtime: run `{escape(line)}`", highlight=False)


class RefinerSearch(str, Enum):
    """The refiner's nearest-entity search (see graph_builders/entities/neighbours.py)."""

    auto = "auto"
    exact = "exact"
    lsh = "lsh"


@build_app.command("entities")
def build_entities_cmd(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    extractor: Annotated[
        str, typer.Option(help="offline (spaCy), llm (agents; needs BIFROST_LLM_MODEL) or auto")
    ] = "auto",
    tau: Annotated[
        Optional[float], typer.Option(help="Refiner merge threshold (cosine); default from settings (0.95)")
    ] = None,
    subparts: Annotated[
        Optional[str], typer.Option(help="Only these subparts, comma-separated (e.g. L,M,P,X)")
    ] = None,
    search: Annotated[
        Optional[RefinerSearch],
        typer.Option(
            help="Refiner's nearest-entity search: exact, lsh (near-linear, may miss ~1/1000 merges at tau) "
            "or auto "
            "(exact up to 20,000 entities, then lsh); default from settings"
        ),
    ] = None,
    reembed: Annotated[
        bool,
        typer.Option(
            "--reembed",
            help="Only recompute the stored entity and triple embeddings with the configured "
            "BIFROST_EMBEDDING_MODEL (e.g. after `bifrost train encoder`); no extraction",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Build the Entity Network Graph: extract entities and relations, merge near-duplicates, embed.

    Incremental: provisions unchanged since the last build are read from the extraction journal
    (no spaCy parse, no model call), known names reuse their stored vectors, and the stores end
    equal to a clean build (removed provisions' entities, mentions and relations are deleted)."""
    if reembed:
        _reembed(ctx, corpus, as_json)
        return
    bf = facade(ctx)
    try:
        with progress_bar() as bar:
            task = bar.add_task("entities", total=None)

            def tick(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = bf.build_entities(
                corpus,
                extractor,
                tau,
                progress=tick,
                subparts=subparts.split(",") if subparts else None,
                search=search.value if search else None,
            )
        usage = bf.usage_report() if bf.chat_model is not None else None
    except EntityBuildAborted as e:
        again = f"bifrost build entities --corpus {corpus} --extractor {extractor}" + (
            f" --subparts {subparts}" if subparts else ""
        )
        fail_message(f"{e}; finished extractions are kept in the journal: resume with `{again}`")
    except BifrostError as e:
        fail(e)
    finally:
        bf.close()
    if as_json:
        emit_json({**report.model_dump(), "usage": usage.model_dump(mode="json") if usage else None})
        return
    out.print(
        f"entity network of [bold]{corpus}[/bold] ({report.extractor}): {report.provisions_processed} "
        "provisions, "
        f"{report.entities} entities, {report.relations} relations ({report.relation_types} types), "
        f"{len(report.failed)} failed, {report.seconds:.1f} s; {report.extracted} extracted, "
        f"{report.from_journal} unchanged (from the journal), {report.texts_embedded} names embedded"
    )
    for line in report.failed[:10]:
        err.print(f"[yellow]failed:[/yellow] {escape(line)}", highlight=False)
    if len(report.failed) > 10:
        err.print(
            f"[yellow]failed:[/yellow] {len(report.failed) - 10} more (--json lists every one)",
            highlight=False,
        )
    if usage:
        out.print(f"model usage: {usage.model_dump(mode='json')}")


def _reembed(ctx: typer.Context, corpus: str, as_json: bool) -> None:
    """`build entities --reembed`: new vectors for the stored entity network, same names."""
    bf = facade(ctx)
    try:
        report = bf.reembed_entities(corpus)
    except BifrostError as e:
        fail(e)
    except ValueError as e:
        fail_message(str(e))
    finally:
        bf.close()
    if as_json:
        emit_json(report)
        return
    out.print(
        f"re-embedded the entity network of [bold]{corpus}[/bold] with {escape(report.embedding_model)}: "
        f"{report.entities} entities, {report.relation_types} relation types, {report.triples} triples, "
        f"{report.seconds:.1f} s"
    )
