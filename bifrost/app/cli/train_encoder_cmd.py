"""`bifrost train encoder`: fine-tune the embedding model on pairs the corpus gives for free.

To be registered on the `train` group (`bifrost.app.cli.train_cmd.make_train_app`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from bifrost.app.cli.common import (
    CorpusOpt,
    JsonOpt,
    emit_json,
    fail,
    fail_message,
    progress_bar,
    with_bifrost,
)
from bifrost.app.cli.console import out
from bifrost.core.errors import BifrostError


def train_encoder(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    max_pairs: Annotated[
        int, typer.Option("--max-pairs", help="At most this many training pairs, shared among the pair kinds")
    ] = 8000,
    epochs: Annotated[int, typer.Option(help="Passes over the pairs")] = 1,
    out_dir: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", help="Model folder (default $BIFROST_HOME/models/encoder-<corpus>/)"),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Fine-tune the embedding model (BIFROST_EMBEDDING_MODEL, default all-MiniLM-L6-v2) on the corpus's own
    pairs, no labels and no LLM: heading -> text, term -> definition, citing sentence -> cited provision,
    provision -> child, note -> the provision it explains (in-batch negatives, CPU). Then point
    BIFROST_EMBEDDING_MODEL at the printed folder, run `bifrost build entities --reembed` and retrain the
    ranker."""
    bar = progress_bar()
    task = bar.add_task("steps", total=None)

    def tick(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    try:
        with bar:
            report = with_bifrost(
                ctx,
                lambda bf: bf.train_encoder(
                    corpus, max_pairs=max_pairs, epochs=epochs, out=out_dir, progress=tick
                ),
            )
    except BifrostError as e:
        fail(e)
    except ValueError as e:
        fail_message(str(e))
    if as_json:
        emit_json(report.as_dict())
        return
    pairs = ", ".join(f"{k} {n}" for k, n in report.pairs.items())
    out.print(
        f"encoder of {corpus}: {sum(report.pairs.values())} pairs ({pairs}), {report.steps} steps, "
        f"{report.seconds:.0f} s, loss {report.mean_loss_first} -> {report.mean_loss_last}",
        highlight=False,
    )
    out.print(f"model: {report.path}", highlight=False)
    out.print(
        f"use it: export BIFROST_EMBEDDING_MODEL={report.path}; bifrost build entities --corpus {corpus} "
        "--reembed; then retrain the ranker (`bifrost train ranker`)",
        highlight=False,
    )
