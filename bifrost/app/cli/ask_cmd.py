"""`bifrost ask`: a cited answer with the quoted span of every citation, or a refusal, from the command
line."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape

from bifrost.app.cli import fast_exit
from bifrost.app.cli.common import JsonOpt, emit_json, settings_of, with_bifrost
from bifrost.app.cli.console import out

from bifrost.core.access import Principal, Role
from bifrost.core.answer_types import routing_note
from bifrost.core.precedent_types import named_note

if TYPE_CHECKING:
    from bifrost.app.facade import Bifrost
    from bifrost.core.answer_types import Answer


def local_user() -> str:
    """Who runs the command, for the record of answers (the operating system's login name)."""
    import getpass

    try:
        return getpass.getuser() or "local"
    except Exception:  # noqa: BLE001 - no login name (a container without one): still answer
        return "local"


def answer_with_model_process(
    ctx: typer.Context, question: str, corpus: str, action: Callable[[Bifrost], Answer]
) -> Answer:
    """Run ``action`` with the models loading in a child process from the start (a cold command
    spends as long importing torch and loading models as loading indexes; see
    `bifrost.core.model_process`); ``BIFROST_MODEL_PROCESS=false`` keeps everything in this process."""
    from bifrost.app.cold_start import model_services
    from bifrost.core.model_process import ModelProcesses

    settings = settings_of(ctx)
    process = (
        ModelProcesses.start(model_services(settings, question, corpus)) if settings.model_process else None
    )

    def run(bf: Bifrost) -> Answer:
        bf.resources.use_model_process(process)
        return action(bf)

    try:
        return with_bifrost(ctx, run)
    finally:
        if process is not None:
            process.close()


def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="A question about the regulations")],
    corpus: Annotated[
        Optional[str],
        typer.Option(
            "--corpus",
            "-c",
            help="Corpus name, several as a,b, or 'all' (citations show their corpus); default: the home's "
            "only corpus, or all of them (the router asks those likely to hold the rule)",
        ),
    ] = None,
    as_json: JsonOpt = False,
    show_retrieved: Annotated[
        int, typer.Option("--retrieved", help="How many retrieved provisions to list")
    ] = 10,
    as_of: Annotated[
        Optional[str],
        typer.Option(
            "--as-of",
            help="Answer from the edition valid on this date (YYYY-MM-DD) or with this number; "
            "a past edition is ranked by lexical + dense fusion (the entity network covers the current "
            "edition only)",
        ),
    ] = None,
) -> None:
    """Answer a question; every statement cites provision ids, or the answer is a refusal."""
    asker = Principal(user=local_user(), role=Role.ADMIN)
    answer = answer_with_model_process(
        ctx, question, corpus, lambda bf: bf.ask(question, corpus, as_of=as_of, asked_by=asker, channel="cli")
    )
    fast_exit.of(ctx).request()  # stores and model processes are closed: only printing is left
    if as_json:
        emit_json(answer.model_dump(mode="json"))
        return
    out.print(f"[bold]Q:[/bold] {escape(answer.question)}", highlight=False)
    if routed := routing_note(answer.routing):
        out.print(f"[dim]{escape(routed)}[/dim]", highlight=False)
    for warning in answer.warnings:
        out.print(f"[yellow]{escape(warning)}[/yellow]", highlight=False)
    if answer.note:
        out.print(f"[yellow]{escape(answer.note)}[/yellow]", highlight=False)
    mode = f"[dim]({answer.mode.value}, {answer.timings.get('total', 0):.2f} s)[/dim]"
    if answer.refused:
        out.print(f"[yellow]{escape(answer.text)}[/yellow] {mode}", highlight=False)
        if answer.unused:
            out.print(
                "retrieved but not used: " + ", ".join(answer.unused[:show_retrieved]),
                highlight=False,
                markup=False,
            )
        return
    print_statements(answer, mode)
    print_pointer(answer)
    if said := named_note(answer.named, answer.corpus):
        out.print(f"[yellow]{escape(said)}[/yellow]", highlight=False)
    print_precedents(answer)
    print_conditions(answer)
    print_sources(answer, show_retrieved)


def print_pointer(answer: Answer) -> None:
    """Where similar questions were answered, under an answer not refused (a refusal's text says it)."""
    if answer.elsewhere is not None and answer.elsewhere.said and not answer.refused:
        out.print(f"[yellow]{escape(answer.elsewhere.said)}[/yellow]", highlight=False)


def print_statements(answer: Answer, mode: str) -> None:
    """The answer's statements, each with its citation marks and verified quotes."""
    label = "[yellow]Not stated[/yellow] " if answer.outcome.value == "not_stated" else ""
    out.print(f"[bold]A:[/bold] {label}{mode}")
    if answer.outcome.value == "shortlist":
        print_shortlist(answer)
        return
    for st in answer.statements:
        where = f"{st.corpus} " if st.corpus else ""
        role = f"[dim]{st.role}:[/dim] " if st.role and st.role not in ("rule", "verdict", "open") else ""
        out.print(
            f"  {role}{escape(st.text)} "
            + "".join(f"[cyan]{escape('[' + where + c + ']')}[/cyan]" for c in st.citations),
            highlight=False,
        )
        for q in st.quotes:
            quoted = " ".join(q.text.split())
            out.print(
                f"    [dim]{escape(f'{q.provision_id} [{q.start}:{q.end}]')}[/dim] "
                f"\u201c{escape(quoted)}\u201d",
                highlight=False,
            )


def print_shortlist(answer: Answer) -> None:
    """No rule sure enough to state: the likeliest provisions, each with how sure and its quoted sentence."""
    out.print(
        "  [bold]The rules most likely to decide your question[/bold] [dim](none is sure enough to state as "
        "the answer: read each)[/dim]",
        highlight=False,
    )
    sure = {s.id: s for s in answer.shortlist}
    for n, st in enumerate(answer.statements, start=1):
        pid = st.citations[0] if st.citations else ""
        listed = sure.get(pid)
        where = f"{st.corpus} " if st.corpus else ""
        head = f" {escape(listed.heading)}" if listed and listed.heading else ""
        how = f" [dim]({listed.probability:.0%} likely)[/dim]" if listed else ""
        out.print(f"  {n}. [cyan]{escape(where + pid)}[/cyan]{head}{how}", highlight=False)
        for q in st.quotes:
            out.print(f"     \u201c{escape(' '.join(q.text.split()))}\u201d", highlight=False)


def print_sources(answer: Answer, show_retrieved: int) -> None:
    """The cited provisions (with their role in the plan), the retrieved ones with scores, the record id."""
    out.print("\n[bold]Sources[/bold]")
    roles = {p.id: p for p in answer.plan}
    sure = {g.id.split(":")[-1] if "," in answer.corpus else g.id: g.probability for g in answer.governing}
    for c in answer.citations:
        where = f"{c.corpus} " if "," in answer.corpus else ""
        planned = roles.get(c.id)
        how = f" [dim]({planned.role}: {escape(planned.reason)})[/dim]" if planned else ""
        if c.id in sure:
            how += f" [dim]governing rule, {sure[c.id]:.0%} sure[/dim]"
        out.print(
            f"  [cyan]{escape(where + c.id)}[/cyan] {escape(c.heading)}{how} {c.url or ''}", highlight=False
        )
    if answer.related:
        out.print("\n[bold]Related provisions[/bold] [dim](found, not what decides the answer)[/dim]")
        for c in answer.related:
            where = f"{c.corpus} " if "," in answer.corpus else ""
            out.print(f"  {escape(where + c.id)} {escape(c.heading)} {c.url or ''}", highlight=False)
            if c.text:
                out.print(f"    [dim]{escape(' '.join(c.text.split()))}[/dim]", highlight=False)
    out.print("\n[bold]Retrieved[/bold] (score, why)")
    for it in answer.retrieved[:show_retrieved]:
        where = f"{it.corpus} " if "," in answer.corpus else ""
        out.print(
            f"  {escape(where + it.id):<28} {it.score:6.3f}  [dim]{escape(it.why)}[/dim]", highlight=False
        )
    if answer.record_id:
        out.print(
            f"\n[dim]on the record as {answer.record_id} (`bifrost answers show {answer.record_id}`)[/dim]",
            highlight=False,
        )


STATUS = {"met": "meets it", "not_met": "does not meet it", "not_stated": "not stated", "stated": "taken up"}


def print_conditions(answer: Answer) -> None:
    """The cited rules' conditions and exceptions the question's facts bear on (or the verdict turns on)."""
    if not answer.conditions:
        return
    out.print("\n[bold]What the cited rules turn on[/bold]", highlight=False)
    read = [f"{f.text} ({f.measure})" if f.measure else f.text for f in answer.figures]
    if read or answer.set_aside:
        aside = f"; set aside: {', '.join(answer.set_aside)}" if answer.set_aside else ""
        out.print(
            f"  [dim]read from the question: {escape(', '.join(read) or 'no figure')}{escape(aside)}[/dim]"
        )
    for c in answer.conditions:
        fact = f" ({c.fact})" if c.fact else ""
        kind = "exception: " if c.kind == "exception" else ""
        out.print(
            f"  [cyan]{escape(c.provision_id)}[/cyan] {escape(kind + c.text)} [dim]- question: "
            f"{STATUS[c.status]}{escape(fact)}[/dim]",
            highlight=False,
        )


def print_precedents(answer: Answer) -> None:
    """The similar answered questions, marked as interpretations: never the rule, never a quote of it."""
    if not answer.precedents:
        return
    issuers = {p.issuer for p in answer.precedents}
    who = next(iter(issuers)) if len(issuers) == 1 and "" not in issuers else "Answered before"
    title = (
        f"{who} answered a similar question"
        if who != "Answered before"
        else "Similar questions answered before"
    )
    out.print(f"\n[bold]{escape(title)}[/bold] [dim](interpretations, not the rule)[/dim]", highlight=False)
    for p in answer.precedents:
        by = f"{p.issuer}, " if p.issuer and who == "Answered before" else ""
        cites = ", ".join(p.cites) or "no provision listed"
        out.print(
            f"  {escape(by + (p.date or ''))} {escape(p.title)} [dim](cites {escape(cites)})[/dim] "
            f"{p.url or ''}",
            highlight=False,
        )
