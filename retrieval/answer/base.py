"""The records the answer modules share: a provision's role in an answer and its place in the plan, a
statement as an answerer drafts it and what the quote check keeps, and the sentences an extractive answer
is made of."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from bifrost.core.answer_types import Statement
from bifrost.core.types import Provision


class Role(str, Enum):
    """What a provision does in an answer."""

    RULE = "rule"
    EXCEPTION = "exception"
    CONDITION = "condition"
    PROCEDURE = "procedure"
    DEFINITION = "definition"


@dataclass(frozen=True)
class Planned:
    """A provision of the plan: its role, the provision ids that led to it (itself last), and why."""

    id: str
    role: Role
    path: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class QuoteClaim:
    """A span an answerer says supports its statement, not yet checked.

    ``provision_id`` None means "one of the statement's citations" (a quote the model did
    not label); the checker tries them in order.
    """

    provision_id: str | None
    text: str


@dataclass(frozen=True)
class DraftStatement:
    """A statement as an answerer wrote it: text, cited ids and claimed quotes."""

    text: str
    citations: tuple[str, ...]
    claims: tuple[QuoteClaim, ...]
    role: str | None = None  # what the cited provision does in the answer (`Statement.role`)


@dataclass(frozen=True)
class DroppedStatement:
    """A statement that did not reach the user, and why."""

    text: str
    reason: str


@dataclass
class CheckedStatements:
    """What survived the check, and what was dropped."""

    statements: list[Statement] = field(default_factory=list)
    dropped: list[DroppedStatement] = field(default_factory=list)


@dataclass(frozen=True)
class Candidate:
    """A sentence of a ranked provision, how close it is to the question, and how well it answers.

    ``fact``: 0 no fact of the asked-for kind, 1 one, 2 a condition as well (yes/no questions)."""

    rank: int
    provision: Provision
    sentence: str
    cosine: float
    fact: int


@dataclass(frozen=True)
class LeadPlan:
    """The statements of an extractive answer, in the order they are said.

    ``open`` is True when the question asks for a kind of fact that no sentence holds; ``lead`` is
    then the sentence the open note quotes (the best-ranked provision's closest sentence)."""

    lead: Candidate
    rest: tuple[Candidate, ...]
    open: bool
