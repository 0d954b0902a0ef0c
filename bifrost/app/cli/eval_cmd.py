"""`bifrost eval`: run question sets against systems, and compare two runs.

`bifrost eval --corpus C --questions Q --systems bm25,dense --out DIR` runs; `bifrost eval compare A B`
runs paired tests between two output folders. Errors are one line on stderr.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.markup import escape
from rich.table import Table

from bifrost.app.cli.common import JsonOpt, with_bifrost
from bifrost.app.cli.common import fail_message as _fail
from bifrost.app.cli.console import err, out
from bifrost.core.errors import BifrostError

eval_app = typer.Typer(help="Evaluate systems on question sets; compare runs.", invoke_without_command=True)


def _emit(data: Any) -> None:
    from bifrost.core.json_safe import sanitize

    out.print_json(json.dumps(sanitize(data), default=str, ensure_ascii=False))


def _mean(m: dict[str, Any], key: str) -> str:
    v = (m.get(key) or {}).get("mean")
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


def print_summary(result: Any, corpus: str) -> None:
    """Skipped and failed systems on stderr, the headline table on stdout."""
    for name, why in result.skipped.items():
        err.print(f"[yellow]skipped[/yellow] {name}: {why}", highlight=False)
    for name, why in result.failed.items():
        err.print(f"[red]failed[/red] {name}: {why}", highlight=False)
    table = Table(title=f"{corpus}: {result.metrics['meta']['questions']['n_run']} questions")
    cols = ("recall@10", "map@10", "ndcg@10", "f1", "f1_h", "f1_sec")  # the rest: report.md, --json
    heads = ("R@10", "MAP@10", "nDCG@10", "F1", "F1 hier", "F1 sec")
    if any("both@10" in s["metrics"] for s in result.metrics["systems"].values()):
        cols, heads = cols + ("both@10",), heads + ("Both@10",)
    table.add_column("system", no_wrap=True, min_width=6)
    for h in heads:
        table.add_column(h, justify="right", no_wrap=True)
    for name, s in result.metrics["systems"].items():
        table.add_row(name, *(_mean(s["metrics"], c) for c in cols))
    out.print(table)


@eval_app.callback()
def run(
    ctx: typer.Context,
    corpus: Annotated[
        Optional[str], typer.Option("--corpus", "-c", help="Ingested corpus, e.g. osha-1926")
    ] = None,
    questions: Annotated[
        Optional[Path], typer.Option("--questions", "-q", help="Question file (JSONL, ObliQA, ObliQA-MP)")
    ] = None,
    systems: Annotated[
        str,
        typer.Option("--systems", "-s", help="Comma list, with params: bm25,dense,bifrost:depth=2,tau=0.9"),
    ] = "bm25",
    out_dir: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="Output folder for metrics, report and plots")
    ] = None,
    k: Annotated[
        int,
        typer.Option(
            "--k", help="Depth of each ranked list scored (Recall@k list always includes 1,5,10,20)"
        ),
    ] = 10,
    limit: Annotated[Optional[int], typer.Option("--limit", help="Only the first N questions")] = None,
    fmt: Annotated[str, typer.Option("--format", help="auto, jsonl, obliqa or obliqa-mp")] = "auto",
    as_of: Annotated[
        Optional[str],
        typer.Option(
            "--as-of",
            help="Evaluate against the edition valid on this date (YYYY-MM-DD) or with this number; on a "
            "past "
            "edition bm25, dense and rrf index its provisions, bifrost systems rank by lexical + dense "
            "fusion, others are skipped",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run every question against each system; write metrics.json, per_question.jsonl, report.md, plots."""
    if ctx.invoked_subcommand is not None:
        return
    if not corpus or not questions or not out_dir:
        _fail("bifrost eval needs --corpus, --questions and --out (or a command: compare); see --help")
    if k <= 0 or (limit is not None and limit <= 0):
        _fail(f"--k and --limit must be > 0 (got k={k}, limit={limit})")
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )
    tasks: dict[str, Any] = {}

    def progress(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = bar.add_task(name, total=total)
        bar.update(tasks[name], completed=done)

    try:
        with bar:
            result = with_bifrost(
                ctx,
                lambda bf: bf.evaluate(
                    questions,
                    corpus,
                    systems,
                    out_dir,
                    k=k,
                    limit=limit,
                    question_format=fmt,
                    progress=progress,
                    as_of=as_of,
                ),
            )
    except (BifrostError, ValueError) as e:
        _fail(str(e))
    if as_json:
        _emit(result.metrics)
        if result.failed:
            raise typer.Exit(1)
        return
    edition = result.metrics["meta"].get("edition")
    if edition:
        out.print(f"[yellow]{escape(edition['note'])}[/yellow]", highlight=False)
    print_summary(result, corpus)
    out.print(f"wrote {result.out_dir}/report.md, metrics.json, per_question.jsonl", highlight=False)
    if result.failed:  # the others were written; the exit code still says something went wrong
        raise typer.Exit(1)


@eval_app.command("compare")
def compare(
    run_a: Annotated[Path, typer.Argument(help="Output folder of the first run")],
    run_b: Annotated[Path, typer.Argument(help="Output folder of the second run")],
    as_json: JsonOpt = False,
) -> None:
    """Paired tests (Wilcoxon, exact McNemar on hit@10, fixed/broken questions) between two runs."""
    from bifrost.app.facade import Bifrost

    try:
        res = Bifrost.compare_runs(run_a, run_b)
    except BifrostError as e:
        _fail(str(e))
    if as_json:
        _emit(res.model_dump())
        return
    if not res.same_questions:
        err.print("[yellow]warning:[/yellow] the runs used different question files; compared on common ids")
    for c in res.comparisons:
        table = Table(title=f"{c['system_a']} (A) vs {c['system_b']} (B), {c['n']} questions")
        for col in ("metric", "A", "B", "B - A", "Wilcoxon p"):
            table.add_column(col, justify="right")
        for m, v in c["metrics"].items():
            table.add_row(
                m,
                *(f"{v[x]:.3f}" if not math.isnan(v[x]) else "–" for x in ("mean_a", "mean_b", "diff")),
                f"{v['wilcoxon_p']:.4f}",
            )
        out.print(table)
        mc = c["mcnemar"]
        out.print(
            f"{mc['metric']}: only A {mc['only_a']}, only B {mc['only_b']}, exact McNemar p = "
            f"{mc['pvalue']:.4f}; "
            f"B fixes {len(c['fixed'])}, breaks {len(c['broken'])}",
            highlight=False,
        )


@eval_app.command("answers")
def answers(
    ctx: typer.Context,
    corpus: Annotated[str, typer.Option("--corpus", "-c", help="Ingested corpus, e.g. osha-1926")],
    questions: Annotated[
        list[Path],
        typer.Option(
            "--questions", "-q", help="Question file(s); only answerable questions with gold are scored"
        ),
    ],
    folds: Annotated[
        int,
        typer.Option(
            "--folds",
            help="k of the cross-validation that picks the answer plan policy when one set is given "
            "(several sets: each left out in turn)",
        ),
    ] = 5,
    out_dir: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", help="Folder for summary.json, report.md, per_question.jsonl"),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Score the answers themselves: citation precision, recall and F1 (exact and hierarchy credit), first
    statement gold and verdicts, for each answer plan policy beside rrf and the hybrid; the policy is chosen
    on sets left out."""
    import sys

    bar = Progress(
        TextColumn("[bold]answers"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )
    task = bar.add_task("answers", total=None)
    command = (
        "bifrost eval answers " + " ".join(sys.argv[sys.argv.index("answers") + 1 :])
        if "answers" in sys.argv
        else ""
    )
    try:
        with bar:
            summary = with_bifrost(
                ctx,
                lambda bf: bf.evaluate_answers(
                    questions,
                    corpus,
                    folds=folds,
                    out_dir=out_dir,
                    progress=lambda d, t: bar.update(task, completed=d, total=t),
                    command=command,
                ),
            )
    except (BifrostError, ValueError, OSError) as e:
        _fail(str(e))
    if as_json:
        _emit(summary.model_dump())
        return
    out.print(summary.report, highlight=False)
    if out_dir is not None:
        out.print(f"wrote {out_dir}/report.md, summary.json, per_question.jsonl", highlight=False)
