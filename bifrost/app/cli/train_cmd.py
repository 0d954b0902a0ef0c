"""`bifrost train ranker`: cross-validate and store the learned ranker of a corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, fail_message, progress_bar, settings_of
from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError

def make_train_app() -> typer.Typer:
    """`bifrost train ranker`, `bifrost train answerability` and `bifrost train encoder`."""
    from bifrost.app.cli.train_answerability_cmd import train_answerability
    from bifrost.app.cli.train_encoder_cmd import train_encoder

    app = typer.Typer(help="Train learned components on question sets (cross-validated).", no_args_is_help=True)
    app.command("ranker")(train_ranker_cmd)
    app.command("answerability")(train_answerability)
    app.command("encoder")(train_encoder)
    return app


def train_ranker_cmd(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    questions: Annotated[list[Path], typer.Option("--questions", "-q", help="Question file (JSONL, ObliQA, ObliQA-MP); repeatable")] = ...,  # type: ignore[assignment]
    folds: Annotated[int, typer.Option(help="k of k-fold cross-validation (a question is never scored by a model trained on it)")] = 5,
    ablations: Annotated[bool, typer.Option("--ablations/--no-ablations", help="Also cross-validate without each feature group")] = True,
    hybrid: Annotated[bool, typer.Option("--hybrid/--no-hybrid", help="Score the hand-set hybrid on the same questions")] = True,
    cv: Annotated[bool, typer.Option("--cv/--no-cv", help="Cross-validate first (--no-cv: only fit and store the model; no figures)")] = True,
    out_dir: Annotated[Optional[Path], typer.Option("--out", "-o", help="Folder for cv.md and cv.json")] = None,
    encoder_questions: Annotated[Optional[list[Path]], typer.Option(
        "--encoder-questions", "-e",
        help="Question file to fine-tune the dense encoder the ranker reads (repeatable; may be a --questions file: "
             "each fold is then read by an encoder that never saw its questions). Adds ~12 min per fold on 2 cores")] = None,
    seed: Annotated[int, typer.Option(help="LightGBM's sampling seed; run a few to see how much of a difference is the seed's")] = 0,
    store: Annotated[bool, typer.Option("--store/--no-store", help="Fit on all questions and store the ranker (and encoder) "
                                        "in the home (--no-store: figures only; the served ranker is left alone)")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Learn to rank candidates from every channel (LightGBM LambdaRank); report k-fold CV figures
    beside bm25, dense, rrf and the hybrid, then fit on all questions and store the model in the home."""
    from bifrost.eval.ltr.train import train_ranker

    bar = progress_bar()
    task = bar.add_task("candidates", total=None)

    def tick(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    try:
        with bar:
            report = train_ranker(settings_of(ctx), corpus, questions, folds, ablations, hybrid and cv, out_dir,
                                  say=lambda m: err.print(m, highlight=False), progress=tick, cv=cv,
                                  encoder_files=encoder_questions or (), seed=seed, store=store)
    except (BifrostError, ValueError) as e:
        fail_message(str(e))
    if as_json:
        emit_json(report.as_dict())
        return
    if not cv:
        out.print(f"model: {report.model_path} (not cross-validated: no figures)", highlight=False)
        return
    table = Table(title=f"{corpus}: {report.pool['questions']} questions, {folds}-fold CV (mean [95% CI])")
    names = [n for n in ("recall@10", "map@10", "ndcg@10", "both@10", "f1") if n in report.systems.get("bifrost-ltr", {})]
    table.add_column("system", no_wrap=True)
    for n in names:
        table.add_column(n, justify="right")
    for group in (report.systems, report.ablations):
        for name, s in group.items():
            table.add_row(name, *(f"{s[n]['mean']:.3f}" if n in s else "–" for n in names))
    out.print(table)
    stored = f"model: {report.model_path} (cited-set cut {report.cite_delta})" if store else "nothing stored (--no-store)"
    out.print(f"candidate pool holds {report.pool['gold_recall_of_pool']:.3f} of the gold; {stored}", highlight=False)
    if out_dir is not None:
        out.print(f"wrote {out_dir}/cv.md and cv.json", highlight=False)
