"""`bifrost train decision`: the governing-rule selector, its calibration and the verdict classifiers,
validated leave-one-set-out behind rankers that never saw the set, then stored behind the corpus's ranker.

Registered on the `train` group by `bifrost.app.cli.train_cmd.make_train_app`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, fail_message, progress_bar, with_bifrost
from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError


def train_decision(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    questions: Annotated[
        list[Path],
        typer.Option(
            "--questions",
            "-q",
            help="Question file with gold provisions (and `decisive` and `verdict` labels where it has "
            "them); two or more: each is left out in turn; repeatable",
        ),
    ] = ...,  # type: ignore[assignment]
    held_out: Annotated[
        list[Path],
        typer.Option(
            "--held-out", help="Question file scored by models fitted on every -q set, never trained on"
        ),
    ] = [],  # noqa: B006 - typer reads the default
    seeds: Annotated[
        str, typer.Option(help="LightGBM seeds, comma-separated: figures are their means")
    ] = "0",
    store: Annotated[
        bool,
        typer.Option("--store/--no-store", help="Store the model in the home (--no-store: figures only)"),
    ] = True,
    validate: Annotated[
        bool,
        typer.Option(
            "--validate/--no-validate",
            help="Score each set left out before fitting the stored model (--no-validate: fit, store)",
        ),
    ] = True,
    out_dir: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="Folder for summary.json and summary.md")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Train the decision `ask` makes before it composes an answer: which rule governs (and how sure that is),
    the verdict of a yes/no question, and what the answer cites. Each set is scored by models fitted on the
    other sets behind a ranker refitted without it; the stored model is fitted on every set."""
    from bifrost.training.decision.report import markdown

    try:
        seed_list = [int(s) for s in seeds.split(",") if s.strip()]
    except ValueError:
        fail_message(f"--seeds must be whole numbers separated by commas, got {seeds!r}")
    bar = progress_bar()
    task = bar.add_task("candidates", total=None)

    def progress(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    try:
        with bar:
            report = with_bifrost(
                ctx,
                lambda bf: bf.train_decision(
                    questions,
                    corpus,
                    held_out=held_out,
                    seeds=seed_list,
                    store=store,
                    validate=validate,
                    out_dir=out_dir,
                    say=lambda m: err.print(m, highlight=False),
                    progress=progress,
                ),
            )
    except (BifrostError, ValueError) as e:
        fail_message(str(e))
    if as_json:
        emit_json(report)
        return
    out.print(markdown(report), highlight=False)
    if report.model_path:
        out.print(f"stored in {report.model_path}", highlight=False)
