"""The JSON API: ask, provision, the answers on the record (list, show, replay, review), users, health.
Typed bodies; every route runs as the request's principal; errors are mapped in `app.py`."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from bifrost.app.provision_view import ProvisionView
from bifrost.core.answer_types import Answer
from bifrost.app.inputs import MAX_QUESTION, AskOptions, check_as_of, check_question
from bifrost.app.web.errors import new_reference
from bifrost.app.web.auth import principal_of
from bifrost.app.web.service import WebState
from bifrost.core.access import Action, AnswerRecord, Replay, User
from bifrost.core.precedent_types import AnswerReview

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api", tags=["api"])


class AskRequest(BaseModel):
    """A question about one corpus, with optional retrieval knobs."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description=f"The question, 1 to {MAX_QUESTION} characters")
    corpus: str = Field(
        default="all",
        description="Corpus name (e.g. osha-1926), several as a,b, or 'all' (default: every corpus you may "
        "read; the router asks those likely to hold the rule)",
    )
    options: AskOptions = Field(default_factory=AskOptions)
    as_of: str | None = Field(
        default=None,
        description="Answer from the edition valid on this date (YYYY-MM-DD) or with this number",
    )

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
    detail: str = Field(
        default="", description="Why the store is unavailable, as a reference into the server log"
    )
    recording: bool = Field(default=True, description="Whether answers are kept on the record")
    records_failed: int = Field(
        default=0, description="Answers given but not recorded since the server started"
    )


class ProvisionPage(ProvisionView):
    """`ProvisionView` plus the entities of the Entity Network mentioned in the provision."""

    entities: list[str] = Field(default_factory=list)


def state_of(request: Request) -> WebState:
    return request.app.state.web


@router.post("/ask", response_model=Answer, summary="Answer a question with cited provisions, or refuse")
def api_ask(body: AskRequest, request: Request) -> Answer:
    """The answer is kept on the record under the caller (its ``record_id``; `GET /api/answers/{id}`)."""
    return state_of(request).ask(
        body.question, body.corpus, body.options, body.as_of, principal_of(request), "api"
    )


@router.get(
    "/provision/{corpus}/{provision_id:path}",
    response_model=ProvisionPage,
    summary="A provision and its neighbours",
)
def api_provision(
    corpus: str, provision_id: str, request: Request, as_of: str | None = None
) -> ProvisionPage:
    """``as_of`` (a date or an edition number) shows the provision as it stood in an earlier edition."""
    web = state_of(request)
    web.require_corpus(corpus, principal_of(request))
    view = web.bifrost.show(corpus, provision_id, check_as_of(as_of))
    return ProvisionPage(**dict(view), entities=web.mentions.of(corpus, provision_id))


class ReviewRequest(BaseModel):
    """A reviewer's marks on a recorded answer: cited provisions judged right or wrong, missing ones added."""

    model_config = ConfigDict(extra="forbid")

    right: list[str] = Field(default_factory=list)
    wrong: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    team: str = ""


@router.get(
    "/answers",
    response_model=list[AnswerRecord],
    summary="Answers on the record the caller may see, newest first",
)
def api_answers(
    request: Request,
    corpus: str | None = None,
    user: str | None = None,
    limit: int = Query(default=50, ge=1, le=1000),
) -> list[AnswerRecord]:
    """A reader sees their own answers; a reviewer those on the corpora of their scope; an admin all."""
    return state_of(request).answer_log.list(principal_of(request), user=user, corpus=corpus, limit=limit)


@router.get("/answers/{record_id}", response_model=AnswerRecord, summary="One answer as it was given")
def api_answer(record_id: str, request: Request) -> AnswerRecord:
    return state_of(request).answer_log.get(record_id, principal_of(request))


@router.post(
    "/answers/{record_id}/replay",
    response_model=Replay,
    summary="Answer a recorded question again and say what changed",
)
def api_replay(record_id: str, request: Request) -> Replay:
    """Asked again on the recorded edition and on today's; citations added, removed or changed against the
    record."""
    return state_of(request).bifrost.replay(record_id, principal_of(request))


@router.post(
    "/answers/{record_id}/review",
    response_model=AnswerReview,
    summary="Review a recorded answer (reviewer role)",
)
def api_review(record_id: str, body: ReviewRequest, request: Request) -> AnswerReview:
    return state_of(request).bifrost.review_record(
        record_id, principal_of(request), right=body.right, wrong=body.wrong, added=body.added, team=body.team
    )


@router.get(
    "/users", response_model=list[User], summary="Users and their tokens, never a secret (admin role)"
)
def api_users(request: Request) -> list[User]:
    principal_of(request).require(Action.ADMIN)
    return state_of(request).bifrost.users.list()


@router.get("/health", response_model=Health, summary="Store reachable, corpora served, model mode")
def api_health(request: Request):
    """Open to all; the corpora are listed only to a caller who may read them."""
    web = state_of(request)
    store = web.bifrost.settings.store
    principal = request.scope.get("state", {}).get("principal")
    try:
        corpora = web.corpora(principal) if principal is not None else []
        served = web.corpora()
        if served:
            web.bifrost.provision(served[0], "__health__")
        health = Health(
            status="ok",
            store=store,
            store_reachable=True,
            corpora=corpora,
            mode=web.mode,
            records_failed=web.answer_log.failures,
            recording=web.answer_log.enabled,
        )
    except Exception as e:  # noqa: BLE001 - health reports any failure instead of raising
        ref = new_reference()
        log.error("health check %s: the store did not answer", ref, exc_info=e)
        health = Health(
            status="unavailable",
            store=store,
            store_reachable=False,
            corpora=[],
            mode="unknown",
            records_failed=web.answer_log.failures,
            recording=web.answer_log.enabled,
            detail=f"the store did not answer (reference {ref}); the server log has the details",
        )
        return JSONResponse(health.model_dump(), status_code=503)
    return health
