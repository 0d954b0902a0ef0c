"""What the MCP tools take and return: typed records (their JSON schemas are the tools' input
checks and output schemas), built from the facade's records."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bifrost.app.inputs import MAX_DEPTH, MAX_QUESTION, MAX_RESULTS, check_question
from bifrost.core.precedent_types import PrecedentMatch, ResolvedCite
from bifrost.core.answer_types import (
    CorpusChance,
    ConditionCheck,
    Elsewhere,
    GoverningRule,
    PlannedProvision,
    Shortlisted,
    Statement,
    Verdict,
)
from bifrost.core.types import Edition

EdgeKind = Literal["HAS", "REFERS_TO"]


# --- requests (validated inside the tools, so that errors carry the web API's one-line messages) ---
class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AskRequest(Request):
    question: str
    corpus: str
    as_of: str | None = None

    @field_validator("question")
    @classmethod
    def _question_ok(cls, v: str) -> str:
        return check_question(v)


class SearchRequest(Request):
    query: str
    corpus: str
    k: int = Field(default=10, ge=1, le=MAX_RESULTS)

    @field_validator("query")
    @classmethod
    def _query_ok(cls, v: str) -> str:
        return check_question(v)


class NeighboursRequest(Request):
    id: str
    corpus: str
    depth: int = Field(default=1, ge=0, le=MAX_DEPTH)
    kinds: list[EdgeKind] = Field(default_factory=lambda: ["HAS", "REFERS_TO"], min_length=1)

    @field_validator("kinds", mode="before")
    @classmethod
    def _upper(cls, v: object) -> object:
        return [k.upper() if isinstance(k, str) else k for k in v] if isinstance(v, list) else v


class EntityRequest(Request):
    name: str = Field(max_length=MAX_QUESTION)
    corpus: str

    @field_validator("name")
    @classmethod
    def _name_ok(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the entity name is empty: give a name such as 'guardrail system'")
        return v.strip()


# --- results ---
class Link(BaseModel):
    """A provision by id, with its heading and resource URI."""

    id: str
    heading: str = ""
    uri: str


class CitedProvision(Link):
    """A provision an answer cites, with its official URL (and, for a related provision, its first
    sentence)."""

    url: str | None = None
    text: str = ""


class Hit(BaseModel):
    """A retrieved provision: rank, score and why retrieval found it."""

    rank: int
    id: str
    score: float
    via: list[str]
    why: str
    path: list[str] = Field(description="Provision ids from the seed to this one")


class AskResult(BaseModel):
    """An answer whose every statement cites provision ids and quotes their exact words, or a refusal."""

    question: str
    corpus: str
    mode: str = Field(description="llm or extractive")
    refused: bool
    text: str
    statements: list[Statement] = Field(
        description="Each statement with its cited ids and quotes: offsets into the cited provision's text"
    )
    citations: list[CitedProvision]
    retrieved: list[Hit] = Field(description="Everything retrieval found, ranked, with why")
    edition: Edition | None = Field(
        default=None, description="The past edition answered from (as_of); null: the current one"
    )
    note: str | None = Field(default=None, description="How a past edition was ranked")
    outcome: str = Field(
        default="answered",
        description="answered (governing[0] is stated as the rule that decides); shortlist (no rule sure "
        "enough: `shortlist` lists the likeliest, none stated); not_stated (the closest provisions are "
        "quoted "
        "and none states it); refused (out of scope)",
    )
    shortlist: list[Shortlisted] = Field(
        default_factory=list,
        description="For outcome shortlist: up to five provisions most likely to decide, likeliest first, "
        "each with its section, heading, the sentence that bears most on the question and its probability",
    )
    elsewhere: Elsewhere | None = Field(
        default=None, description="For a refusal or not_stated: where similar questions were answered"
    )
    verdict: Verdict | None = Field(
        default=None, description="yes, no or depends, with the provision and words that decide it"
    )
    plan: list[PlannedProvision] = Field(
        default_factory=list,
        description="Each cited provision's role (rule, exception, "
        "condition, procedure, definition) and the path that brought it in",
    )
    named: list[ResolvedCite] = Field(
        default_factory=list,
        description="Provisions the question names: each as written, "
        "the provision it resolves to, or why not",
    )
    precedents: list[PrecedentMatch] = Field(
        default_factory=list,
        description="Similar questions the regulator answered: interpretations, never the rule",
    )
    conditions: list[ConditionCheck] = Field(
        default_factory=list,
        description="The cited rules' conditions and exceptions the question's facts bear on (or a depends "
        "verdict turns on), each checked against those facts: met, not_met, not_stated, stated",
    )
    governing: list[GoverningRule] = Field(
        default_factory=list,
        description="The rules the answer rests on, governing rule first, each with the selector's "
        "calibrated probability that it is one the answer needs",
    )
    related: list[CitedProvision] = Field(
        default_factory=list,
        description="Other provisions the search found, not what decides the answer: read them as context",
    )
    routing: list[CorpusChance] = Field(
        default_factory=list,
        description="Several corpora asked: how likely each is to hold the rule (the router's calibrated "
        "probability), likeliest first, and which were asked",
    )
    record_id: str | None = Field(
        default=None, description="The answer's id on the server's record of answers given"
    )
    warnings: list[str] = Field(
        default_factory=list, description="What the asker should know (e.g. not recorded)"
    )


class PrecedentsRequest(Request):
    question: str
    corpus: str
    k: int = Field(default=5, ge=1, le=50)

    @field_validator("question")
    @classmethod
    def _question_ok(cls, v: str) -> str:
        return check_question(v)


class PrecedentsResult(BaseModel):
    """Answered questions similar to a question, best first, with the provisions each cites."""

    question: str
    corpus: str
    precedents: list[PrecedentMatch]


class SearchHit(Hit):
    """A ranked provision with its heading, text and addresses."""

    heading: str = ""
    text: str = ""
    url: str | None = None
    uri: str


class SearchResult(BaseModel):
    query: str
    corpus: str
    results: list[SearchHit]


class Reference(BaseModel):
    """A cross-reference: the provision at the other end and the citation text."""

    id: str
    text: str | None = None
    uri: str


class ProvisionResult(BaseModel):
    """A provision's text and its place in the navigator graph."""

    corpus: str
    id: str
    kind: str
    heading: str
    text: str
    url: str | None = Field(description="Official text online")
    uri: str
    parent: Link | None
    children: list[Link]
    references_out: list[Reference]
    references_in: list[Reference]
    dangling_references: list[str] = Field(
        description="Citations in the text that resolve to nothing in the corpus"
    )


class Relation(BaseModel):
    head: str
    relation: str
    tail: str
    provisions: list[str]


class EntityResult(BaseModel):
    """An entity of the Entity Network, the provisions that mention it and its relations."""

    name: str
    label: str = ""
    asked: str
    provisions: list[str]
    relations: list[Relation]
