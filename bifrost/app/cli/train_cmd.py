"""`bifrost train ranker`: cross-validate and store the learned ranker of a corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, fail_message, progress_bar, with_bifrost
from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError


def make_train_app() -> typer.Typer:
    """`bifrost train ranker`, `answerability`, `decision`, `encoder`, `router` (`reader`: removed)."""
    from bifrost.app.cli.train_answerability_cmd import train_answerability
    from bifrost.app.cli.train_decision_cmd import train_decision
    from bifrost.app.cli.train_encoder_cmd import train_encoder
    from bifrost.app.cli.train_router_cmd import train_router

    app = typer.Typer(
        help="Train learned components on question sets (cross-validated).", no_args_is_help=True
    )
    app.command("ranker")(train_ranker_cmd)
    app.command("answerability")(train_answerability)
    app.command("decision")(train_decision)
    app.command("reader", hidden=True, context_settings=REMOVED_ARGS)(train_reader_removed)
    app.command("encoder")(train_encoder)
    app.command("router")(train_router)
    return app


REMOVED_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True}
"""A removed command takes whatever options an old script passes, and says it was removed."""


def train_reader_removed() -> None:
    """Removed: the reader read at chance on every set left out (docs/results.md, "Tried and not kept")."""
    fail_message(
        "bifrost train reader was removed: the cross-encoder reader read at chance on every question set "
        "left "
        "out (docs/results.md, 'Tried and not kept'); the decision step chooses what an answer cites: "
        "bifrost train decision"
    )


def train_ranker_cmd(
    ctx: typer.Context,
    corpus: CorpusOpt = "osha-1926",
    questions: Annotated[
        list[Path],
        typer.Option("--questions", "-q", help="Question file (JSONL, ObliQA, ObliQA-MP); repeatable"),
    ] = ...,  # type: ignore[assignment]
    folds: Annotated[
        int,
        typer.Option(
            help="k of k-fold cross-validation (a question is never scored by a model trained on it)"
        ),
    ] = 5,
    ablations: Annotated[
        bool,
        typer.Option("--ablations/--no-ablations", help="Also cross-validate without each feature group"),
    ] = True,
    hybrid: Annotated[
        bool, typer.Option("--hybrid/--no-hybrid", help="Score the hand-set hybrid on the same questions")
    ] = True,
    cv: Annotated[
        bool,
        typer.Option(
            "--cv/--no-cv", help="Cross-validate first (--no-cv: only fit and store the model; no figures)"
        ),
    ] = True,
    out_dir: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="Folder for cv.md and cv.json")
    ] = None,
    encoder_questions: Annotated[
        Optional[list[Path]],
        typer.Option(
            "--encoder-questions",
            "-e",
            help="Question file to fine-tune the dense encoder the ranker reads (repeatable; may be a "
            "--questions file: "
            "each fold is then read by an encoder that never saw its questions). Adds ~12 min per fold on 2 "
            "cores",
        ),
    ] = None,
    held_out: Annotated[
        Optional[list[Path]],
        typer.Option(
            "--held-out",
            help="Question file never trained on, scored by the model fitted on every --questions set "
            "(repeatable)",
        ),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            help="LightGBM's sampling seed; run a few to see how much of a difference is the seed's"
        ),
    ] = 0,
    seeds: Annotated[
        Optional[str],
        typer.Option(
            help="Several LightGBM seeds, e.g. 0,1,2: figures are averaged over them (the stored model uses "
            "the first)"
        ),
    ] = None,
    store: Annotated[
        bool,
        typer.Option(
            "--store/--no-store",
            help="Fit on all questions and store the ranker (and encoder) "
            "in the home (--no-store: figures only; the served ranker is left alone)",
        ),
    ] = True,
    loso_without: Annotated[
        Optional[list[str]],
        typer.Option(
            "--loso-without",
            help="A feature group (e.g. applicability) whose worth to measure with each set left out: "
            "the ranker is also fitted without it; repeatable",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Learn to rank candidates from every channel (LightGBM LambdaRank); report figures beside bm25, dense,
    rrf and the hybrid: each question set left out in turn (fit on the others) when several are given,
    held-out sets, and k-fold CV; then fit on all questions and store the model in the home."""
    try:
        seed_list = [int(s) for s in seeds.split(",")] if seeds else [seed]
    except ValueError:
        fail_message(f"--seeds: expected integers separated by commas, got {seeds!r}")
    bar = progress_bar()
    task = bar.add_task("candidates", total=None)

    def tick(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    try:
        with bar:
            report = with_bifrost(
                ctx,
                lambda bf: bf.train_ranker(
                    questions,
                    corpus,
                    folds=folds,
                    ablations=ablations,
                    hybrid=hybrid and cv,
                    out_dir=out_dir,
                    say=lambda m: err.print(m, highlight=False),
                    progress=tick,
                    cv=cv,
                    encoder_files=encoder_questions or (),
                    seed=seed,
                    store=store,
                    held_out_files=held_out or (),
                    seeds=seed_list,
                    loso_without=loso_without or (),
                ),
            )
    except (BifrostError, ValueError) as e:
        fail_message(str(e))
    if as_json:
        emit_json(report.as_dict())
        return
    if not cv:
        out.print(f"model: {report.model_path} (not cross-validated: no figures)", highlight=False)
        return
    print_report(report, corpus, folds, store, out_dir)


def print_report(report, corpus: str, folds: int, store: bool, out_dir: Path | None) -> None:
    """The left-out and held-out sets (worst first), the k-fold table, and where the model went."""
    if report.left_out or report.held_out:
        out.print(set_table(report))
        worst = report.worst_left_out()
        if worst:
            out.print(
                f"worst left-out set: {worst['set']}, bifrost-ltr R@10 {worst['ratio_to_rrf']:.2f}x RRF"
                + (f" (mean of seeds {','.join(map(str, report.seeds))})" if len(report.seeds) > 1 else ""),
                highlight=False,
            )
    table = Table(title=f"{corpus}: {report.pool['questions']} questions, {folds}-fold CV (mean [95% CI])")
    names = [
        n
        for n in ("recall@10", "map@10", "ndcg@10", "both@10", "f1")
        if n in report.systems.get("bifrost-ltr", {})
    ]
    table.add_column("system", no_wrap=True)
    for n in names:
        table.add_column(n, justify="right")
    for group in (report.systems, report.ablations):
        for name, s in group.items():
            table.add_row(name, *(f"{s[n]['mean']:.3f}" if n in s else "–" for n in names))
    out.print(table)
    stored = (
        f"model: {report.model_path} (cited-set cut {report.cite_delta})"
        if store
        else "nothing stored (--no-store)"
    )
    out.print(
        f"candidate pool holds {report.pool['gold_recall_of_pool']:.3f} of the gold; {stored}",
        highlight=False,
    )
    if out_dir is not None:
        out.print(f"wrote {out_dir}/cv.md and cv.json", highlight=False)


def set_table(report) -> Table:
    """R@10 per set left out (fit on the other sets) and per held-out set, worst ratio to RRF first."""
    rows = {
        **{f"{k} (left out)": v for k, v in report.left_out.items()},
        **{f"{k} (held out)": v for k, v in report.held_out.items()},
    }
    means = {
        **{f"{k} (left out)": report.seed_means.get(k) for k in report.left_out},
        **{f"{k} (held out)": report.seed_means.get(k) for k in report.held_out},
    }
    systems = [
        s
        for s in ("bm25", "dense", "rrf", "bifrost-hybrid", "bifrost-ltr")
        if any(s in v for v in rows.values())
    ]
    table = Table(title="R@10 by question set (leave-one-set-out; held-out sets were never trained on)")
    for col in ("set", "questions", *systems, "ltr / rrf"):
        table.add_column(col, justify="left" if col == "set" else "right", no_wrap=col == "set")

    def ratio(name: str) -> float:
        ltr = (means[name] or {}).get("mean", rows[name]["bifrost-ltr"]["recall@10"]["mean"])
        rrf = rows[name].get("rrf", {}).get("recall@10", {}).get("mean") or float("nan")
        return ltr / rrf

    for name in sorted(rows, key=ratio):
        cells = [f"{rows[name][s]['recall@10']['mean']:.3f}" if s in rows[name] else "–" for s in systems]
        if means[name] and means[name]["n"] > 1:
            cells[-1] = f"{means[name]['mean']:.3f} ({means[name]['min']:.3f}-{means[name]['max']:.3f})"
        table.add_row(name, str(rows[name]["bifrost-ltr"]["recall@10"]["n"]), *cells, f"{ratio(name):.2f}x")
    return table
