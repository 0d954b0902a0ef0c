"""`bifrost precedents import`, `list` and `questions`: the bank of answered questions a corpus's answers
draw on."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, with_bifrost
from bifrost.app.cli.console import err, out

precedents_app = typer.Typer(
    help="Answered questions (letters of interpretation, FAQs, reviewed answers) that cite the corpus.",
    no_args_is_help=True,
)


@precedents_app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[
        Path, typer.Argument(help="A .jsonl or .csv file: id, title or question, date, url, issuer, cites")
    ],
    corpus: CorpusOpt = "osha-1926",
    issuer: Annotated[str, typer.Option(help="Who answered, for rows that do not say (e.g. OSHA)")] = "",
    as_json: JsonOpt = False,
) -> None:
    """Import precedents: their citations are resolved against the corpus (kept, marked outside it, when it
    lacks them); a bad line is reported by file, line and field and the rest is imported."""
    report = with_bifrost(ctx, lambda bf: bf.import_precedents(file, corpus, issuer))
    if as_json:
        emit_json(report.model_dump())
    else:
        out.print(
            f"{escape(file.name)} into {corpus}: {report.added} added, {report.updated} updated, "
            f"{report.unchanged} "
            f"unchanged; {report.cites_resolved} citations resolved, {report.cites_outside} outside the "
            "corpus",
            highlight=False,
        )
    for line in report.errors:
        err.print(f"skipped: {escape(line)}", highlight=False)
    if report.errors and not (report.added or report.updated or report.unchanged):
        raise typer.Exit(1)


@precedents_app.command("questions")
def questions(
    ctx: typer.Context,
    out_file: Annotated[Path, typer.Option("--out", "-o", help="The question file to write (JSONL)")],
    corpus: CorpusOpt = "osha-1926",
) -> None:
    """Write the precedents that cite the corpus as a question file (the title as the question, the cited
    provisions as gold), for `bifrost train ranker -q` on a corpus with no question set of its own."""
    n = with_bifrost(ctx, lambda bf: bf.precedent_questions(corpus, out_file))
    out.print(
        f"{n} questions from the precedents of {corpus} written to {escape(str(out_file))}", highlight=False
    )


@precedents_app.command("list")
def list_(ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False) -> None:
    """Every precedent of a corpus: id, date, title and what it cites."""
    bank = with_bifrost(ctx, lambda bf: bf.precedents(corpus))
    if as_json:
        emit_json([p.model_dump(mode="json") for p in bank])
        return
    for p in bank:
        cites = ", ".join(c.target_id or f"{c.written} (outside)" for c in p.cites)
        out.print(f"{escape(p.id)}  {p.date or ''}  {escape(p.title)}  [{escape(cites)}]", highlight=False)
    if not bank:
        out.print(f"{corpus}: no precedents loaded", highlight=False)
