"""Server-rendered HTML pages: search, results, provision and entity pages, and the answers on the record
(each page shows only the corpora and records its user may read)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from bifrost.app.web.auth import check_form, form_of, principal_of
from bifrost.app.web.graph_svg import layout
from bifrost.app.inputs import MAX_QUESTION, InvalidQuestion, check_as_of, check_question
from bifrost.app.web.render import render, state_of
from bifrost.app.web.views import EXAMPLES, provision_url, sources_of, via_labels
from bifrost.core.answer_types import routing_note

router = APIRouter(include_in_schema=False)


def examples_for(corpus: str | None, offered: list[str]) -> tuple[str, ...]:
    """The example questions shown for a corpus; for every rulebook, those of each corpus offered."""
    if corpus == "all":
        return tuple(q for c in offered for q in EXAMPLES.get(c, ()))
    return EXAMPLES.get(corpus or "", ())


@router.get("/", response_class=HTMLResponse)
def search_page(request: Request, corpus: str | None = None) -> HTMLResponse:
    web, principal = state_of(request), principal_of(request)
    offered = web.corpora(principal)
    chosen = (
        corpus
        if corpus in offered or (corpus == "all" and len(offered) > 1)
        else web.default_corpus(principal)
    )
    return render(request, "search.html", corpus=chosen, examples=examples_for(chosen, offered), q="")


@router.get("/ask", response_class=HTMLResponse)
def results_page(request: Request, q: str = "", corpus: str | None = None) -> HTMLResponse:
    web, principal = state_of(request), principal_of(request)
    corpus = corpus or web.default_corpus(principal) or ""
    try:
        question = check_question(q)
    except InvalidQuestion as e:
        return render(
            request,
            "search.html",
            status=400,
            corpus=corpus,
            q=q[:MAX_QUESTION],
            examples=examples_for(corpus, web.corpora(principal)),
            error=str(e),
        )
    answer = web.ask(question, corpus, principal=principal, channel="web")
    corpus = answer.corpus
    link = lambda pid: provision_url(corpus, pid)  # noqa: E731
    sources = sources_of(web.bifrost, answer)
    anchors = {s.citation.id: s.anchor for s in sources}
    graph = (
        None
        if answer.refused or "," in corpus
        else layout(web.bifrost, answer, lambda pid: f"#{anchors[pid]}" if pid in anchors else link(pid))
    )
    return render(
        request,
        "results.html",
        corpus=corpus,
        q=question,
        answer=answer,
        sources=sources,
        anchors=anchors,
        graph=graph,
        via_labels=via_labels,
        retrieved={it.id: it for it in answer.retrieved},
        routing=routing_note(answer.routing),
    )


@router.get("/provision/{corpus}/{provision_id:path}", response_class=HTMLResponse)
def provision_page(
    request: Request, corpus: str, provision_id: str, as_of: str | None = None
) -> HTMLResponse:
    web, principal = state_of(request), principal_of(request)
    web.require_corpus(corpus, principal)
    view = web.bifrost.show(corpus, provision_id, check_as_of(as_of))
    return render(
        request,
        "provision.html",
        corpus=corpus,
        view=view,
        p=view.provision,
        entities=web.mentions.of(corpus, provision_id),
    )


@router.get("/entity/{corpus}/{name:path}", response_class=HTMLResponse)
def entity_page(request: Request, corpus: str, name: str) -> HTMLResponse:
    web, principal = state_of(request), principal_of(request)
    web.require_corpus(corpus, principal)
    return render(request, "entity.html", corpus=corpus, entity=web.bifrost.entity_view(corpus, name))


@router.get("/answers", response_class=HTMLResponse)
def answers_page(request: Request) -> HTMLResponse:
    web, principal = state_of(request), principal_of(request)
    return render(request, "answers.html", records=web.answer_log.list(principal, limit=100))


@router.get("/answers/{record_id}", response_class=HTMLResponse)
def answer_page(request: Request, record_id: str, reviewed: int = 0) -> HTMLResponse:
    web, principal = state_of(request), principal_of(request)
    record = web.answer_log.get(record_id, principal)
    return render(
        request,
        "answer_record.html",
        record=record,
        reviewed=bool(reviewed),
        corpus=next(iter(record.editions), record.corpus),
    )


@router.post("/answers/{record_id}/review")
async def review_form(request: Request, record_id: str) -> Response:
    """A reviewer's marks on a recorded answer: ``mark-<provision id>`` right or wrong, ``added`` ids,
    ``team``."""
    import anyio.to_thread

    form = await form_of(request)
    principal = check_form(request, form)
    right = [k[5:] for k, v in form.items() if k.startswith("mark-") and v[0] == "right"]
    wrong = [k[5:] for k, v in form.items() if k.startswith("mark-") and v[0] == "wrong"]
    added = [x for x in (form.get("added") or [""])[0].replace(",", " ").split() if x]
    team = (form.get("team") or [""])[0]
    web = state_of(request)
    await anyio.to_thread.run_sync(
        lambda: web.bifrost.review_record(
            record_id, principal, right=right, wrong=wrong, added=added, team=team
        )
    )
    return RedirectResponse(f"/answers/{record_id}?reviewed=1", status_code=303)
