"""`bifrost train reader`: cross-fit the reader by question set, score its answers nested, then store it.

Registered on the `train` group by `bifrost.app.cli.train_cmd.make_train_app`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, fail_message, with_bifrost
from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError


def train_reader(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    questions: Annotated[
        list[Path],
        typer.Option(
            "--questions",
            "-q",
            help="Question file with gold provisions (answerable "
            "and unanswerable); two or more: each is left out in turn; repeatable",
        ),
    ] = ...,  # type: ignore[assignment]
    epochs: Annotated[int, typer.Option(help="Passes over the training pairs")] = 1,
    layers: Annotated[
        int, typer.Option("--layers", help="Top transformer layers trained (the others are frozen)")
    ] = 2,
    curve: Annotated[
        bool,
        typer.Option(
            "--curve/--no-curve",
            help="Also a learning curve: the first set left out, readers on 1k, 2k, 4k pairs and all",
        ),
    ] = False,
    store: Annotated[
        bool,
        typer.Option("--store/--no-store", help="Store the reader in the home (--no-store: figures only)"),
    ] = True,
    out_dir: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="Folder for summary.json and outcomes.jsonl")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Train the reader, a cross-encoder that reads the question with each top provision and sentence: it
    decides what `ask` cites, when it answers "not stated" and which sentence gives a yes/no verdict. Each
    set is scored by a ranker and a reader fitted on the other sets; the stored reader is trained on all."""
    try:
        report = with_bifrost(
            ctx,
            lambda bf: bf.train_reader(
                questions,
                corpus,
                epochs=epochs,
                trainable_layers=layers,
                curve=curve,
                store=store,
                out_dir=out_dir,
                say=lambda m: err.print(m, highlight=False),
            ),
        )
    except (BifrostError, ValueError) as e:
        fail_message(str(e))
    if as_json:
        emit_json(report)
        return
    for name, f in report.left_out.items():
        systems = f.get("systems") or {}
        line = "  ".join(f"{s} F1 {v['f1']:.3f} (P {v['precision']:.3f})" for s, v in systems.items())
        o = f.get("outcomes", {}).get("reader", {})
        out.print(
            f"{name}: AUROC {f.get('auroc', float('nan')):.3f}  {line}  unanswerable set aside "
            f"{o.get('unanswerable_refused_or_not_stated', float('nan')):.2f}",
            highlight=False,
        )
    out.print(
        f"cuts {report.cuts}" + (f"; stored in {report.model_path}" if report.model_path else ""),
        highlight=False,
    )
