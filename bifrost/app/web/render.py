"""Rendering a page with what every page needs: the user, their corpora, their session's CSRF value."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse

from bifrost.app.inputs import MAX_QUESTION
from bifrost.app.web.service import WebState
from bifrost.core.access import Action


def state_of(request: Request) -> WebState:
    return request.app.state.web


def render(request: Request, name: str, status: int = 200, **ctx) -> HTMLResponse:
    """A template with the context every page needs (the user, their corpora, the CSRF value of their
    session, the limit of a question)."""
    web = state_of(request)
    state = request.scope.get("state", {})
    principal = state.get("principal")
    base = {
        "corpora": web.corpora(principal) if principal else [],
        "default_corpus": web.default_corpus(principal) if principal else None,
        "max_question": MAX_QUESTION,
        "user": principal if web.auth_required else None,
        "csrf": state.get("csrf", ""),
        "can_review": bool(principal and principal.may(Action.REVIEW)),
    }
    return request.app.state.templates.TemplateResponse(request, name, {**base, **ctx}, status_code=status)
