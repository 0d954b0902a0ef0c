"""`bifrost answers`: the record of answers given (list, show, replay, prune)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.markup import escape

from bifrost.app.cli.common import JsonOpt, emit_json, with_bifrost
from bifrost.app.cli.console import out
from bifrost.core.access import LOCAL, AnswerRecord, CitationChange

answers_app = typer.Typer(
    help="Every answer given (CLI, web, API, MCP): who asked, when, from which edition, citing what.",
    no_args_is_help=True,
)


def _line(r: AnswerRecord) -> str:
    verdict = f" {r.verdict}" if r.verdict else ""
    editions = ",".join(f"{c}@{n}" for c, n in r.editions.items())
    return (
        f"{r.id}  {r.asked_at:%Y-%m-%d %H:%M:%S}  {escape(r.user)} ({r.channel})  {editions}  "
        f"{r.outcome}{verdict}  {escape(r.question[:80])}"
    )


@answers_app.command("list")
def list_(
    ctx: typer.Context,
    corpus: Annotated[Optional[str], typer.Option("--corpus", "-c", help="Only this corpus")] = None,
    user: Annotated[Optional[str], typer.Option(help="Only this user's")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="How many, newest first")] = 50,
    as_json: JsonOpt = False,
) -> None:
    """The newest answers on the record."""
    records = with_bifrost(ctx, lambda bf: bf.answer_log.list(LOCAL, user=user, corpus=corpus, limit=limit))
    if as_json:
        emit_json([r.model_dump(mode="json", exclude={"answer"}) for r in records])
        return
    for r in records:
        out.print(_line(r), highlight=False)
    if not records:
        out.print("no answers on the record", highlight=False)


@answers_app.command("show")
def show(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(help="Record id (`answers list`)")],
    as_json: JsonOpt = False,
) -> None:
    """One answer as it was given: question, asker, editions, code and models, the answer and its
    citations."""
    r = with_bifrost(ctx, lambda bf: bf.answer_log.get(record_id, LOCAL))
    if as_json:
        emit_json(r.model_dump(mode="json"))
        return
    out.print(_line(r), highlight=False)
    out.print(
        f"code {r.code_version}; models " + ", ".join(f"{k} {v}" for k, v in r.models.items() if v),
        highlight=False,
    )
    out.print(escape(r.answer.get("text", "")), highlight=False)
    out.print("cites: " + (", ".join(r.citations) or "nothing"), highlight=False)


def _changes(title: str, changes: list[CitationChange]) -> None:
    moved = [c for c in changes if c.change != "unchanged"]
    out.print(
        f"{title}: " + ("; ".join(f"{c.id} {c.change}" for c in moved) if moved else "same citations"),
        highlight=False,
    )


@answers_app.command("replay")
def replay(
    ctx: typer.Context,
    record_id: Annotated[str, typer.Argument(help="Record id (`answers list`)")],
    as_json: JsonOpt = False,
) -> None:
    """Answer a recorded question again on its edition and on today's, and say what changed."""
    rp = with_bifrost(ctx, lambda bf: bf.replay(record_id, LOCAL))
    if as_json:
        emit_json(rp.model_dump(mode="json") | {"changed": rp.changed})
        return
    rec = rp.record
    out.print(_line(rec), highlight=False)
    then = ",".join(f"{c}@{n}" for c, n in rec.editions.items())
    now = ",".join(f"{c}@{n}" for c, n in rp.current_editions.items())
    _changes(f"again on the same edition ({then})", rp.changes_same_edition)
    if rp.same_edition_note:
        out.print(f"  [dim]{escape(rp.same_edition_note)}[/dim]", highlight=False)
    _changes(f"on today's edition ({now})", rp.changes_current)
    if rp.outcome_then != rp.outcome_now or rp.verdict_then != rp.verdict_now:
        out.print(
            f"outcome then {rp.outcome_then} {rp.verdict_then or ''}, now {rp.outcome_now} "
            f"{rp.verdict_now or ''}",
            highlight=False,
        )
    out.print("changed since the record" if rp.changed else "unchanged since the record", highlight=False)


@answers_app.command("prune")
def prune(ctx: typer.Context) -> None:
    """Delete the records older than the retention (BIFROST_ANSWER_RETENTION_DAYS)."""
    n = with_bifrost(ctx, lambda bf: bf.answer_log.prune())
    out.print(f"{n} answer record(s) deleted", highlight=False)
