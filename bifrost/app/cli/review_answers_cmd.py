"""`bifrost review answer`, `review answers` and `review export`: a reviewer's verdict on an answer, which
becomes a precedent of the reviewer's team and a question `train ranker` can learn from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from bifrost.app.cli.common import CorpusOpt, JsonOpt, emit_json, with_bifrost
from bifrost.app.cli.console import out

Ids = Annotated[Optional[list[str]], typer.Option(help="A provision id (repeatable)")]


def review_answer(
    ctx: typer.Context,
    question: Annotated[
        str, typer.Argument(help="The question whose answer (as `ask` gives it now) is reviewed")
    ],
    reviewer: Annotated[str, typer.Option(help="Who reviews")],
    corpus: CorpusOpt = "osha-1926",
    right: Ids = None,
    wrong: Ids = None,
    add: Annotated[
        Optional[list[str]], typer.Option(help="A provision the answer missed (repeatable)")
    ] = None,
    team: Annotated[
        str, typer.Option(help="The reviewer's team: the issuer of the precedent the review makes")
    ] = "",
    as_json: JsonOpt = False,
) -> None:
    """Mark each provision the answer cites right (--right) or wrong (--wrong) and add what it missed (--add);
    the review is kept with who, when and the edition, and its right and added provisions become a
    precedent."""
    review = with_bifrost(
        ctx,
        lambda bf: bf.review_answer(
            question,
            corpus,
            reviewer=reviewer,
            right=right or (),
            wrong=wrong or (),
            added=add or (),
            team=team,
        ),
    )
    if as_json:
        emit_json(review.model_dump(mode="json"))
        return
    marks = ", ".join(f"{c.id} {'right' if c.right else 'wrong'}" for c in review.cited)
    out.print(
        f"review #{review.id} of edition {review.edition} by {escape(review.reviewer)}: "
        f"{escape(marks or 'no marks')}"
        f"{'; added ' + escape(', '.join(review.added)) if review.added else ''}",
        highlight=False,
    )
    if review.gold:
        out.print(f"precedent {review.precedent_id} cites {escape(', '.join(review.gold))}", highlight=False)


def review_answers(ctx: typer.Context, corpus: CorpusOpt = "osha-1926", as_json: JsonOpt = False) -> None:
    """Every answer review: who, when, the edition, the marks, and the provisions that moved since
    (flagged)."""
    rows = with_bifrost(ctx, lambda bf: bf.reviews(corpus))
    if as_json:
        emit_json([{**r.model_dump(mode="json"), "moved": moved} for r, moved in rows])
        return
    if not rows:
        out.print(f"{corpus}: no answer reviews", highlight=False)
    for r, moved in rows:
        flag = (
            f" [yellow]moved since edition {r.edition}: {escape(', '.join(moved))}[/yellow]" if moved else ""
        )
        out.print(
            f"#{r.id} {r.created_at} {escape(r.reviewer)} (edition {r.edition}) {escape(r.question)} -> "
            f"{escape(', '.join(r.gold) or 'nothing right')}{flag}",
            highlight=False,
        )


def review_export(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The JSONL question file to write")],
    corpus: CorpusOpt = "osha-1926",
) -> None:
    """Write the reviews as a question set (id, question, gold = the right and added provisions), for
    `bifrost train ranker -q FILE`."""
    from bifrost.app.facade import review_question_set

    rows = with_bifrost(ctx, lambda bf: review_question_set(bf.reviews(corpus)))
    file.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out.print(f"{len(rows)} reviewed questions written to {escape(str(file))}", highlight=False)
