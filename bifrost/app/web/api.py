"""The JSON API: ask, provision, health. Typed bodies; errors are mapped in `app.py`."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from bifrost.app.provision_view import ProvisionView
from bifrost.core.types import Answer
from bifrost.app.inputs import MAX_QUESTION, AskOptions, check_as_of, check_question
from bifrost.app.web.errors import new_reference
from bifrost.app.web.service import WebState

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api", tags=["api"])


class AskRequest(BaseModel):
    """A question about one corpus, with optional retrieval knobs."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description=f"The question, 1 to {MAX_QUESTION} characters")
    corpus: str = Field(default="osha-1926", description="Corpus name, e.g. osha-1926")
    options: AskOptions = Field(default_factory=AskOptions)
    as_of: str | None = Field(default=None, description="Answer from the edition valid on this date (YYYY-MM-DD) or with this number")

    @field_validator("question")
    @classmethod
    def _question_ok(cls, v: str) -> str:
        return check_question(v)


class Health(BaseModel):
    """Whether the stores answer, which corpora are served and which answer mode is on."""

    status: str
    store: str
    store_reachable: bool
    corpora: list[str]
    mode: str
    detail: str = Field(default="", description="Why the store is unavailable, as a reference into the server log")


class ProvisionPage(ProvisionView):
    """`ProvisionView` plus the entities of the Entity Network mentioned in the provision."""

    entities: list[str] = Field(default_factory=list)


def state_of(request: Request) -> WebState:
    return request.app.state.web


@router.post("/ask", response_model=Answer, summary="Answer a question with cited provisions, or refuse")
def api_ask(body: AskRequest, request: Request) -> Answer:
    return state_of(request).ask(body.question, body.corpus, body.options, body.as_of)


@router.get("/provision/{corpus}/{provision_id:path}", response_model=ProvisionPage, summary="A provision and its neighbours")
def api_provision(corpus: str, provision_id: str, request: Request, as_of: str | None = None) -> ProvisionPage:
    """``as_of`` (a date or an edition number) shows the provision as it stood in an earlier edition."""
    web = state_of(request)
    web.require_corpus(corpus)
    view = web.bifrost.show(corpus, provision_id, check_as_of(as_of))
    return ProvisionPage(**dict(view), entities=web.mentions.of(corpus, provision_id))


@router.get("/health", response_model=Health, summary="Store reachable, corpora served, model mode")
def api_health(request: Request):
    web = state_of(request)
    store = web.bifrost.settings.store
    try:
        corpora = web.corpora()
        if corpora:
            web.bifrost.provision(corpora[0], "__health__")
        health = Health(status="ok", store=store, store_reachable=True, corpora=corpora, mode=web.mode)
    except Exception as e:  # noqa: BLE001 - health reports any failure instead of raising
        ref = new_reference()
        log.error("health check %s: the store did not answer", ref, exc_info=e)
        health = Health(status="unavailable", store=store, store_reachable=False, corpora=[], mode="unknown",
                        detail=f"the store did not answer (reference {ref}); the server log has the details")
        return JSONResponse(health.model_dump(), status_code=503)
    return health
