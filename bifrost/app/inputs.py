"""Input rules every edge shares (web API and pages, MCP server), one place per rule.

A bad input is a `BifrostError` (or a pydantic `ValidationError` turned into one line by
`one_line`) whose message says what was wrong and what is allowed, the same words on every edge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.retrieval.multi_corpus import is_several, parse_corpora

MAX_QUESTION = 2000
MAX_RESULTS = 100
MAX_DEPTH = 5


class InvalidQuestion(BifrostError, ValueError):
    """A question that is empty or too long (HTTP 400 on pages, 422 in the API, invalid params in MCP)."""


class InvalidRequest(BifrostError, ValueError):
    """Arguments that break the request rules; the message lists each field and what is wrong."""


class AskOptions(BaseModel):
    """Per-request retrieval knobs; unset ones keep the facade's configuration."""

    model_config = ConfigDict(extra="forbid")

    top_n: int | None = Field(
        default=None, ge=1, le=MAX_RESULTS, description="Length of the ranked retrieved list"
    )
    cite_max: int | None = Field(default=None, ge=1, le=20, description="Most provisions the answer cites")
    depth: int | None = Field(
        default=None, ge=0, le=MAX_DEPTH, description="REFERS_TO hops followed from candidates"
    )


def check_question(question: str | None) -> str:
    """The stripped question, or `InvalidQuestion` saying what is wrong."""
    q = (question or "").strip()
    if not q:
        raise InvalidQuestion("the question is empty: type a question about the regulations")
    if len(q) > MAX_QUESTION:
        raise InvalidQuestion(f"the question has {len(q)} characters; the limit is {MAX_QUESTION}")
    return q


def check_as_of(as_of: str | None) -> str | None:
    """A point in time: None, an edition number or an ISO date (YYYY-MM-DD); else `InvalidRequest`."""
    from datetime import date

    if as_of is None or not as_of.strip():
        return None
    value = as_of.strip()
    if value.isdigit():
        return value
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise InvalidRequest(
            f"as_of: {value[:40]!r} is not a date (YYYY-MM-DD) or an edition number"
        ) from None


def check_corpus(corpus: str, served: Sequence[str], several: bool = False) -> None:
    """`NotFoundError` naming the served corpora when ``corpus`` is not one of them; with
    ``several``, a comma-separated list or ``all`` is accepted too (questions over several corpora)."""
    if several and is_several(corpus):
        parse_corpora(corpus, served)
        return
    if corpus not in served:
        raise NotFoundError(f"unknown corpus {corpus!r}; loaded corpora: {', '.join(served) or 'none'}")


def error_details(
    errors: Iterable[Mapping[str, Any]], skip: tuple[str, ...] = ("body",)
) -> list[dict[str, str]]:
    """Pydantic errors as ``{field, message}`` pairs (dotted field path, message without "Value error, ")."""
    return [
        {
            "field": ".".join(str(p) for p in e.get("loc", ()) if p not in skip),
            "message": str(e.get("msg", "")).removeprefix("Value error, "),
        }
        for e in errors
    ]


def one_line(details: Sequence[Mapping[str, str]]) -> str:
    """``field: message; field: message``: the one-line form every edge shows."""
    return "; ".join(f"{d['field']}: {d['message']}" if d["field"] else d["message"] for d in details)
