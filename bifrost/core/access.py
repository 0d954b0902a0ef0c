"""Who may do what on a served home: roles, the principal a request runs as, and the records of users,
tokens and answers given, as they cross module boundaries (issue 46)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from bifrost.core.errors import BifrostError

ALL_CORPORA = "*"


class Unauthenticated(BifrostError):
    """No credentials, or credentials that are unknown, expired or revoked (HTTP 401)."""


class AccessDenied(BifrostError):
    """Known credentials that may not do this or read this corpus (HTTP 403)."""


class Role(str, Enum):
    """reader: ask, search, read provisions; reviewer: also review answers; admin: also users and imports."""

    READER = "reader"
    REVIEWER = "reviewer"
    ADMIN = "admin"


class Action(str, Enum):
    READ = "read"
    REVIEW = "review"
    ADMIN = "admin"


_ALLOWED: dict[Role, frozenset[Action]] = {
    Role.READER: frozenset({Action.READ}),
    Role.REVIEWER: frozenset({Action.READ, Action.REVIEW}),
    Role.ADMIN: frozenset({Action.READ, Action.REVIEW, Action.ADMIN}),
}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Principal(_Frozen):
    """Whom a request runs as: a user, a role, the corpora it may read (``*``: all) and the token used."""

    user: str
    role: Role
    corpora: tuple[str, ...] = (ALL_CORPORA,)
    token_id: str = ""
    rate_limit: str | None = Field(
        default=None, description="This user's own limit, e.g. '120/minute' (None: the server's)"
    )

    def may(self, action: Action) -> bool:
        return action in _ALLOWED[self.role]

    def may_read(self, corpus: str) -> bool:
        return ALL_CORPORA in self.corpora or corpus in self.corpora

    def readable(self, names: Sequence[str]) -> list[str]:
        """The names this principal may read, in their order."""
        return [n for n in names if self.may_read(n)]

    def require(self, action: Action) -> None:
        """`AccessDenied` naming the role needed when this principal may not ``action``."""
        if not self.may(action):
            needed = {Action.READ: "reader", Action.REVIEW: "reviewer", Action.ADMIN: "admin"}[action]
            raise AccessDenied(
                f"user {self.user!r} ({self.role.value}) may not {action.value}: this needs the {needed} role"
            )

    def require_corpus(self, corpus: str) -> None:
        """`AccessDenied` when ``corpus`` is outside this principal's scope (existing or not: nothing is
        revealed)."""
        if not self.may_read(corpus):
            raise AccessDenied(f"corpus {corpus!r} is not in the scope of user {self.user!r}")


LOCAL = Principal(user="local", role=Role.ADMIN)
"""The one user of a server with authentication off (loopback, today's behaviour)."""


class TokenInfo(_Frozen):
    """A token as listed: never its secret (only its hash is stored)."""

    id: str
    user: str
    created_at: datetime
    expires_at: datetime | None = None
    revoked_at: datetime | None = None


class User(_Frozen):
    name: str
    role: Role
    corpora: tuple[str, ...]
    rate_limit: str | None = None
    created_at: datetime
    tokens: tuple[TokenInfo, ...] = ()


class NewToken(_Frozen):
    """A token just made: ``secret`` is the whole token, shown once and never stored."""

    user: str
    id: str
    secret: str
    expires_at: datetime | None = None


class AnswerRecord(BaseModel):
    """One answer as given: what was asked, by whom, through which door, from which edition, with which code
    and models, and the whole answer (citations, quotes, verdict) as the asker saw it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    asked_at: datetime
    user: str
    channel: str = Field(description="cli, web, api or mcp")
    corpus: str
    editions: dict[str, int] = Field(
        default_factory=dict, description="Edition number answered from, per corpus"
    )
    as_of: str | None = Field(
        default=None, description="The edition the asker asked for, when not the current one"
    )
    question: str
    outcome: str
    verdict: str | None = None
    citations: list[str] = Field(default_factory=list)
    code_version: str = ""
    models: dict[str, str | None] = Field(default_factory=dict)
    answer: dict = Field(default_factory=dict, description="The answer as returned (JSON)")


class CitationChange(_Frozen):
    """A citation of the recorded answer and of the replayed one, compared."""

    id: str
    change: str = Field(description="added, removed, text changed or unchanged")


class Replay(BaseModel):
    """An answer asked again: on the recorded edition and on today's, with what changed against the record."""

    record: AnswerRecord
    same_edition: dict = Field(description="The answer on the recorded edition (JSON)")
    same_edition_note: str | None = Field(
        default=None,
        description="How the recorded edition was ranked, when it is no longer the current one (its note)",
    )
    current: dict = Field(description="The answer on today's edition (JSON)")
    current_editions: dict[str, int] = Field(default_factory=dict)
    changes_same_edition: list[CitationChange] = Field(default_factory=list)
    changes_current: list[CitationChange] = Field(default_factory=list)
    outcome_then: str
    outcome_now: str
    verdict_then: str | None = None
    verdict_now: str | None = None

    @property
    def changed(self) -> bool:
        moved = any(c.change != "unchanged" for c in self.changes_current)
        return moved or self.outcome_then != self.outcome_now or self.verdict_then != self.verdict_now
