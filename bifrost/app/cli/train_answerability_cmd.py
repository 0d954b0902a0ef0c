"""`bifrost train answerability`: cross-validate and store the answerability model of a corpus.

Registered on the `train` group by `bifrost.app.cli.train_cmd.make_train_app`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, fail_message, progress_bar, with_bifrost
from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError


def train_answerability(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    questions: Annotated[
        list[Path],
        typer.Option(
            "--questions",
            "-q",
            help="Question file (JSONL with answerable and unanswerable questions, ObliQA, ObliQA-MP); "
            "repeatable",
        ),
    ] = ...,  # type: ignore[assignment]
    held_out: Annotated[
        Optional[list[Path]],
        typer.Option(
            "--held-out", help="Question file never trained on, scored by the stored model (repeatable)"
        ),
    ] = None,
    folds: Annotated[
        int,
        typer.Option(
            help="k of k-fold cross-validation (a question is never scored by a model trained on it)"
        ),
    ] = 5,
    false_refusal: Annotated[
        float,
        typer.Option(
            "--false-refusal",
            help="Most answerable questions refused, as a share; the refusal "
            "threshold is chosen for it on every training set's out-of-set scores",
        ),
    ] = 0.02,
    not_stated: Annotated[
        float,
        typer.Option(
            "--not-stated-share",
            help="Most answerable questions refused or answered "
            '"not stated", as a share (pooled out-of-set scores)',
        ),
    ] = 0.10,
    support: Annotated[
        bool,
        typer.Option(
            "--support/--no-support",
            help="Train the support scorer (a cross-encoder reading the "
            "question with each top provision; cross-fitted by question set; about 8 min per set on 2 cores)",
        ),
    ] = False,
    ablations: Annotated[
        bool,
        typer.Option("--ablations/--no-ablations", help="Also cross-validate without each feature group"),
    ] = True,
    store: Annotated[
        bool,
        typer.Option("--store/--no-store", help="Store the model in the home (--no-store: figures only)"),
    ] = True,
    out_dir: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="Folder for cv.md, cv.json and per_question.jsonl")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Learn when the retrieved provisions do not answer a question (whether the top provisions state it,
    what the question asks for, retrieval confidence); report each question set left out (fit on the
    others), held-out sets and k-fold figures beside the cosine rule; then fit on all questions and store
    the model, by which `ask` answers, says "not stated" (the closest provisions, quoted) or refuses."""
    bar = progress_bar()
    task = bar.add_task("questions", total=None)

    def tick(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    try:
        with bar:
            report = with_bifrost(
                ctx,
                lambda bf: bf.train_answerability(
                    questions,
                    corpus,
                    folds=folds,
                    target=false_refusal,
                    open_target=not_stated,
                    ablations=ablations,
                    out_dir=out_dir,
                    say=lambda m: err.print(m, highlight=False),
                    progress=tick,
                    held_out_files=held_out or (),
                    support=support,
                    store=store,
                ),
            )
    except (BifrostError, ValueError) as e:
        fail_message(str(e))
    if as_json:
        emit_json(report.as_dict())
        return
    print_report(report, corpus, folds, out_dir)


def print_report(report, corpus: str, folds: int, out_dir: Path | None) -> None:
    """The sets left out and held out (most answerable questions lost first), then the k-fold table."""
    from bifrost.app.cli.answerability_tables import outcome_table

    if report.left_out or report.held_out:
        out.print(outcome_table(report))
    table = Table(title=f"{corpus}: {report.model['n']} questions, {folds}-fold CV (mean [95% CI])")
    for column in ("system", "AUROC", "refusal (unanswerable)", "false refusal (answerable)"):
        table.add_column(
            column, justify="left" if column == "system" else "right", no_wrap=column == "system"
        )
    rows = {
        "answerability model": report.model,
        **report.ablations,
        f"cosine rule ({report.cosine['rule']})": report.cosine,
    }
    for name, f in rows.items():
        table.add_row(name, *(_cell(f.get(k)) for k in ("auroc", "refusal_unanswerable", "false_refusal")))
    out.print(table)
    where = f"model: {report.card_path}" if report.card_path else "nothing stored (--no-store)"
    out.print(
        f'refuse below {report.threshold:.3f}, "not stated" below {report.answer_threshold:.3f} (at most '
        f"{report.target:.0%} refused, {report.open_target:.0%} refused or not stated); {where}",
        highlight=False,
    )
    if out_dir is not None:
        out.print(f"wrote {out_dir}/cv.md, cv.json and per_question.jsonl", highlight=False)


def _cell(ci: dict | None) -> str:
    return f"{ci['mean']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}]" if ci else "–"
