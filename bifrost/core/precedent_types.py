"""Records of precedents (a regulator's answered questions: letters of interpretation, FAQs, reviewed
answers) and of the provisions a question names, as they cross module boundaries."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResolvedCite(_Frozen):
    """One citation as written (in a precedent or a question) and the provision it resolves to.

    ``target_id`` is None when the corpus lacks it (``reason`` says why: outside the corpus, not in the
    current edition); ``via`` says how a target was found when it is not the citation itself."""

    written: str
    target_id: str | None = None
    reason: str | None = None
    via: str = Field(
        default="",
        description="'' (the citation itself), 'successor' (a renumbered rule's new place), "
        "'context' (found only where the question stands: no rulebook named)",
    )

    @property
    def resolved(self) -> bool:
        return self.target_id is not None


class Precedent(_Frozen):
    """An answered question: who answered it, when, where it is published, and what it cites."""

    corpus: str
    id: str
    title: str
    question: str = Field(
        default="", description="The question as asked, when the source gives more than a title"
    )
    date: str | None = None
    url: str | None = None
    issuer: str = ""
    cites: tuple[ResolvedCite, ...] = ()
    source: str = Field(default="", description="The file it was imported from")

    @property
    def text(self) -> str:
        """What a question is compared with: the question when given, else the title."""
        return self.question or self.title

    @property
    def resolved_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.target_id for c in self.cites if c.target_id is not None))


class PrecedentMatch(_Frozen):
    """A precedent similar to a question, as an answer shows it: an interpretation, never the rule."""

    id: str
    title: str
    date: str | None = None
    url: str | None = None
    issuer: str = ""
    cites: tuple[str, ...] = Field(default=(), description="The citations as the precedent writes them")
    resolved: tuple[str, ...] = Field(default=(), description="The provisions of the corpus they resolve to")
    similarity: float = 0.0


def named_note(named: Sequence[ResolvedCite], corpus: str) -> str:
    """What an answer says of the provisions the question names that the corpus's current edition lacks:
    which one was not found and why, or which successor answered for it. Empty when every one resolved."""
    lines = []
    for c in named:
        if c.via == "successor":
            lines.append(f"{c.written}: {c.reason}; answered from {c.target_id}.")
        elif c.target_id is None:
            lines.append(f"{c.written}: not found in the current edition of {corpus} ({c.reason}).")
    return "\n".join(lines)


class ReviewedCitation(_Frozen):
    """One provision an answer cited, as a reviewer judged it."""

    id: str
    right: bool


class AnswerReview(_Frozen):
    """A reviewer's verdict on an answer: each cited provision right or wrong, and the provisions it missed.
    Its right and added provisions make it a precedent (issuer: the reviewer's team) and a training pair."""

    id: int
    corpus: str
    question: str
    edition: int
    reviewer: str
    team: str = ""
    created_at: str
    cited: tuple[ReviewedCitation, ...] = ()
    added: tuple[str, ...] = ()

    @property
    def gold(self) -> tuple[str, ...]:
        """What answers the question, by the review: the cited provisions judged right, then those added."""
        return tuple(dict.fromkeys([*(c.id for c in self.cited if c.right), *self.added]))

    @property
    def precedent_id(self) -> str:
        return f"review-{self.id}"
