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
    questions: Annotated[list[Path], typer.Option("--questions", "-q", help="Question file (JSONL with answerable and unanswerable questions, ObliQA, ObliQA-MP); repeatable")] = ...,  # type: ignore[assignment]
    folds: Annotated[int, typer.Option(help="k of k-fold cross-validation (a question is never scored by a model trained on it)")] = 5,
    false_refusal: Annotated[float, typer.Option("--false-refusal", help="Target share of answerable questions refused; the threshold is chosen for it inside each training fold")] = 0.05,
    ablations: Annotated[bool, typer.Option("--ablations/--no-ablations", help="Also cross-validate without each feature group")] = True,
    out_dir: Annotated[Optional[Path], typer.Option("--out", "-o", help="Folder for cv.md, cv.json and per_question.jsonl")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Learn when the retrieved provisions do not answer a question (what the question asks for, whether
    the top provisions state a matching fact, retrieval confidence); report k-fold CV figures beside the
    cosine rule, then fit on all questions and store the model in the home, where `ask` refuses by it."""
    bar = progress_bar()
    task = bar.add_task("questions", total=None)

    def tick(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    try:
        with bar:
            report = with_bifrost(ctx, lambda bf: bf.train_answerability(
                questions, corpus, folds=folds, target=false_refusal, ablations=ablations, out_dir=out_dir,
                say=lambda m: err.print(m, highlight=False), progress=tick))
    except (BifrostError, ValueError) as e:
        fail_message(str(e))
    if as_json:
        emit_json(report.as_dict())
        return
    table = Table(title=f"{corpus}: {report.model['n']} questions, {folds}-fold CV (mean [95% CI])")
    for column in ("system", "AUROC", "refusal (unanswerable)", "false refusal (answerable)"):
        table.add_column(column, justify="left" if column == "system" else "right", no_wrap=column == "system")
    rows = {"answerability model": report.model, **report.ablations, f"cosine rule ({report.cosine['rule']})": report.cosine}
    for name, f in rows.items():
        table.add_row(name, *(_cell(f.get(k)) for k in ("auroc", "refusal_unanswerable", "false_refusal")))
    out.print(table)
    out.print(f"threshold {report.threshold:.3f} (at most {false_refusal:.0%} false refusals); model: {report.card_path}", highlight=False)
    if out_dir is not None:
        out.print(f"wrote {out_dir}/cv.md, cv.json and per_question.jsonl", highlight=False)


def _cell(ci: dict | None) -> str:
    return f"{ci['mean']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}]" if ci else "–"
