"""Server-rendered HTML pages: search, results, provision and entity pages."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from bifrost.app.web.graph_svg import layout
from bifrost.app.inputs import MAX_QUESTION, InvalidQuestion, check_as_of, check_question
from bifrost.app.web.service import WebState
from bifrost.app.web.views import EXAMPLES, provision_url, sources_of, via_labels

router = APIRouter(include_in_schema=False)


def state_of(request: Request) -> WebState:
    return request.app.state.web


def render(request: Request, name: str, status: int = 200, **ctx) -> HTMLResponse:
    """A template with the context every page needs (served corpora, the limit of a question)."""
    web = state_of(request)
    base = {"corpora": web.corpora(), "default_corpus": web.default_corpus(), "max_question": MAX_QUESTION}
    return request.app.state.templates.TemplateResponse(request, name, {**base, **ctx}, status_code=status)


@router.get("/", response_class=HTMLResponse)
def search_page(request: Request, corpus: str | None = None) -> HTMLResponse:
    web = state_of(request)
    chosen = corpus if corpus in web.corpora() else web.default_corpus()
    return render(request, "search.html", corpus=chosen, examples=EXAMPLES.get(chosen or "", ()), q="")


@router.get("/ask", response_class=HTMLResponse)
def results_page(request: Request, q: str = "", corpus: str | None = None) -> HTMLResponse:
    web = state_of(request)
    corpus = corpus or web.default_corpus() or ""
    try:
        question = check_question(q)
    except InvalidQuestion as e:
        return render(request, "search.html", status=400, corpus=corpus, q=q[:MAX_QUESTION],
                      examples=EXAMPLES.get(corpus, ()), error=str(e))
    web.require_corpus(corpus, several=True)
    answer = web.ask(question, corpus)
    link = lambda pid: provision_url(corpus, pid)  # noqa: E731
    sources = sources_of(web.bifrost, answer)
    anchors = {s.citation.id: s.anchor for s in sources}
    graph = None if answer.refused or len(web.bifrost.corpora_in(corpus)) > 1 else layout(web.bifrost, answer, lambda pid: f"#{anchors[pid]}" if pid in anchors else link(pid))
    return render(request, "results.html", corpus=corpus, q=question, answer=answer, sources=sources,
                  anchors=anchors, graph=graph, via_labels=via_labels,
                  retrieved={it.id: it for it in answer.retrieved})


@router.get("/provision/{corpus}/{provision_id:path}", response_class=HTMLResponse)
def provision_page(request: Request, corpus: str, provision_id: str, as_of: str | None = None) -> HTMLResponse:
    web = state_of(request)
    web.require_corpus(corpus)
    view = web.bifrost.show(corpus, provision_id, check_as_of(as_of))
    return render(request, "provision.html", corpus=corpus, view=view, p=view.provision,
                  entities=web.mentions.of(corpus, provision_id))


@router.get("/entity/{corpus}/{name:path}", response_class=HTMLResponse)
def entity_page(request: Request, corpus: str, name: str) -> HTMLResponse:
    web = state_of(request)
    web.require_corpus(corpus)
    return render(request, "entity.html", corpus=corpus, entity=web.bifrost.entity_view(corpus, name))
