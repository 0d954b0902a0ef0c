"""What every CLI command shares: option types, settings from the root context, running one
facade action with one-line errors, JSON output and progress bars. One place for each."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from pydantic import BaseModel
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError
from bifrost.core.settings import Settings

if TYPE_CHECKING:  # the facade pulls in every layer: imported when a command runs, not for --help
    from bifrost.app.facade import Bifrost

T = TypeVar("T")

CorpusOpt = Annotated[str, typer.Option("--corpus", "-c", help="Corpus name, e.g. osha-1926")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines")]


def configure_logging(verbose: bool) -> None:
    """One handler on stderr; libraries that turn themselves up (bm25s sets DEBUG on import) and
    model-loading progress bars are kept quiet unless --verbose."""
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("bm25s").setLevel(logging.NOTSET)  # the BM25 module resets it after importing bm25s
    if not verbose:
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # read by transformers when it loads


def settings_of(ctx: typer.Context) -> Settings:
    """The settings the main options built (read from the root context)."""
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = Settings()
    return root.obj


def facade(ctx: typer.Context) -> Bifrost:
    from bifrost.app.facade import Bifrost

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
    """``data`` (a record or plain JSON values) as JSON on stdout."""
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json")
    out.print_json(json.dumps(data, default=str, ensure_ascii=False))


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def fail(e: BifrostError, code: int = 1) -> NoReturn:
    err.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def fail_message(message: str, code: int = 1) -> NoReturn:
    """Print a one-line error and exit (for checks done before any facade call)."""
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def serve_with(
    ctx: typer.Context, extra: str, corpora: list[str] | None, run: Callable[[Bifrost], None]
) -> None:
    """What every server command does: check its extra, check the asked corpora, run until stopped,
    turn a `BifrostError` into one line, and close the facade."""
    from bifrost.core.extras import require_extra

    try:
        require_extra(extra)
    except BifrostError as e:
        fail(e)
    bf = facade(ctx)
    try:
        for name in corpora or []:
            bf.require_corpus(name)
        run(bf)
    except BifrostError as e:
        fail(e)
    finally:
        bf.close()
