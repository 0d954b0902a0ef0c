"""An answer's records: what retrieval reached and how, the citations, the quoted statements, the verdict, the
conditions checked against the question's facts, and the `Answer` the CLI, web app, MCP server and the record
of answers carry."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from bifrost.core.precedent_types import PrecedentMatch, ResolvedCite
from bifrost.core.quantities import Quantity
from bifrost.core.types import Edition, Frozen


class Via(str, Enum):
    """How a provision was reached by retrieval."""

    ENTITY = "entity"
    TRIPLE = "triple"
    REFERS_TO = "refers_to"
    PARENT = "parent"
    CHILD = "child"
    SIBLING = "sibling"
    LEXICAL = "lexical"
    DENSE = "dense"
    NAMED = "named"  # the question names it (or the section or subpart holding it)
    PRECEDENT = "precedent"  # similar answered questions cite it


class RetrievedItem(Frozen):
    """A provision found by retrieval, with its score and every way it was reached."""

    corpus: str
    id: str
    score: float
    via: tuple[Via, ...] = ()
    path: tuple[str, ...] = Field(default=(), description="Provision ids from a seed to this one")
    why: str = Field(
        default="", description="Human-readable reason, e.g. 'cross-reference from 1926.501(b)(2)(i)'"
    )


class Citation(Frozen):
    """A cited provision with what a reader needs to check it."""

    corpus: str
    id: str
    heading: str = ""
    text: str = ""
    url: str | None = None


class Quote(Frozen):
    """The exact words of a provision that support a statement.

    ``start`` and ``end`` are character offsets into the stored provision text, so that
    ``provision.text[start:end] == text`` always holds; `bifrost.retrieval.answer.quotes` builds them.
    """

    provision_id: str
    start: int = Field(ge=0)
    end: int = Field(gt=0)
    text: str = Field(min_length=1)

    @model_validator(mode="after")
    def _span_matches_text(self) -> Quote:
        if self.end - self.start != len(self.text):
            raise ValueError(
                f"quote of {self.provision_id}: span {self.start}..{self.end} does not fit a text of "
                f"{len(self.text)} characters"
            )
        return self


class Statement(Frozen):
    """One sentence of an answer, the provision ids it cites and the quoted span of each."""

    text: str
    citations: tuple[str, ...]
    quotes: tuple[Quote, ...] = Field(default=(), description="Verified spans of the cited provisions' text")
    corpus: str | None = Field(
        default=None, description="Corpus of the cited provisions, set when an answer spans several"
    )
    role: str | None = Field(
        default=None,
        description="What the cited provision does in the answer: verdict, rule, "
        "exception, condition, procedure, definition, or open (what none of them says)",
    )


class PlannedProvision(Frozen):
    """A provision the answer plan chose: its role, the provision ids that led to it (itself last), and
    why."""

    id: str
    role: str
    path: tuple[str, ...] = ()
    reason: str = ""


class Verdict(Frozen):
    """A yes/no answer the cited text decides: the value, the provision that decides it and its words."""

    value: Literal["yes", "no", "depends"]
    provision_id: str
    words: str = Field(description="The sentence of the provision that decides it, as stored")
    reason: str = Field(
        "", description="Why, in one clause naming the provisions ('1926.451(g)(1) requires it')"
    )
    see_also: list[str] = Field(default_factory=list, description="Other provisions the reason names")


class GoverningRule(Frozen):
    """A rule the answer rests on, and the selector's calibrated probability that it is one the answer needs
    (on questions never trained on, answers given 0.9 had a needed rule about that often; docs/results.md)."""

    id: str
    probability: float = Field(ge=0.0, le=1.0)


class Shortlisted(Frozen):
    """A provision likely to decide a question the answer does not state a rule for: what a reader needs to
    open it, the sentence of it that bears most on the question, and the selector's calibrated probability."""

    id: str
    corpus: str
    section: str = Field(default="", description="The section it belongs to (itself for a section)")
    heading: str = ""
    sentence: str = Field(
        default="", description="The sentence quoted: the one that bears most on the question, else its first"
    )
    probability: float = Field(ge=0.0, le=1.0)
    url: str | None = None


class ConditionCheck(Frozen):
    """A cited rule's condition or exception against the question's facts
    (`retrieval.answer.applicability`)."""

    provision_id: str
    sentence: int = Field(description="Which sentence of the provision states it (0-based)")
    kind: Literal["quantity", "exception"]
    text: str = Field(description="The condition as the rule writes it, or the exception's clause")
    comparator: str = Field(default="", description='">=", "<=", ">", "<" for a threshold')
    measure: str = Field(
        default="", description="What a quantity measures (height, depth, ...), or an exception's cue"
    )
    status: Literal["met", "not_met", "not_stated", "stated"] = Field(
        description="met / not_met: the question's figure against the threshold; not_stated: the question "
        "does not "
        "say; stated: the question takes the exception up (whether it applies is for the reader)"
    )
    fact: str = Field(default="", description="The question's figure it was checked against")


class QuestionFigure(Frozen):
    """A figure read from the question with what it measures ("12ft below": a depth): what the cited rules'
    thresholds are checked against."""

    text: str = Field(description="The figure as the question writes it")
    value: float
    unit: str = Field(description="pint's name of the unit as written")
    magnitude: float | None = Field(default=None, description="In base units; None when it cannot convert")
    dimension: str = ""
    comparator: str = Field(default="", description='">=", "<=", ">", "<" when the question says so')
    measure: str = Field(default="", description="height, depth, distance, ... when the words say")

    @classmethod
    def of(cls, q: Quantity, measure: str) -> QuestionFigure:
        return cls(
            text=q.text,
            value=q.value,
            unit=q.unit,
            magnitude=q.magnitude,
            dimension=q.dimension,
            comparator=q.comparator,
            measure=measure,
        )

    def quantity(self) -> Quantity:
        return Quantity(self.text, self.value, self.unit, self.magnitude, self.dimension, self.comparator)


class PlaceCited(Frozen):
    """A part of the rules outside the corpus, as a reader names it, and what it is about."""

    cited: str = Field(description='e.g. "29 CFR 1910.147"')
    about: str = Field(default="", description="What that part of the rules is about, when the rulebook says")


class Elsewhere(Frozen):
    """Where the answer to a question the corpus does not answer lives: the parts of the rules the nearest
    answered questions are listed under, those questions, and a corpus of this home that holds them."""

    places: list[PlaceCited] = Field(default_factory=list)
    precedents: list[PrecedentMatch] = Field(default_factory=list)
    corpus: str | None = Field(default=None, description="A corpus of this home holding the places, to ask")
    said: str = Field(default="", description="The sentence the answer says it in")


class CorpusChance(Frozen):
    """How likely one corpus of the home is to hold the rule a question needs (the corpus router's calibrated
    probability), and whether it was asked."""

    corpus: str
    probability: float = Field(ge=0.0, le=1.0)
    asked: bool = False


def routing_note(chances: Sequence[CorpusChance]) -> str:
    """One line saying which corpora the router asked and how likely each was to hold the rule ("" when no
    router chose)."""
    if not chances:
        return ""
    said = lambda cs: ", ".join(f"{c.corpus} ({c.probability:.0%})" for c in cs)  # noqa: E731
    asked, left = [c for c in chances if c.asked], [c for c in chances if not c.asked]
    line = f"Asked {said(asked)}, by how likely each is to hold the rule"
    return f"{line}; not asked: {said(left)}." if left else f"{line}."


class Outcome(str, Enum):
    """How a question was answered: one rule is stated as the one that decides; the rules most likely to
    decide it are listed, none stated (no rule was sure enough); the closest provisions do not state it; out
    of scope."""

    ANSWERED = "answered"
    SHORTLIST = "shortlist"
    NOT_STATED = "not_stated"
    REFUSED = "refused"


class AnswerMode(str, Enum):
    LLM = "llm"
    EXTRACTIVE = "extractive"


class Answer(BaseModel):
    """The answer to a question: statements with citations, or a refusal."""

    question: str
    corpus: str
    mode: AnswerMode
    refused: bool
    text: str
    statements: list[Statement] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    retrieved: list[RetrievedItem] = Field(default_factory=list)
    unused: list[str] = Field(default_factory=list, description="Retrieved but not cited (shown on refusal)")
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage")
    edition: Edition | None = Field(
        default=None, description="The past edition answered from (None: the current one)"
    )
    note: str | None = Field(
        default=None, description="How a past edition was ranked (the entity network is current only)"
    )
    outcome: Outcome = Field(
        default=Outcome.ANSWERED,
        description="answered (governing[0] is the rule that decides, sure enough by the bar validation "
        "chose), shortlist (no rule sure enough: `shortlist` lists the likeliest, none stated), not_stated "
        "(the closest provisions are quoted and none states it) or refused (out of scope)",
    )
    shortlist: list[Shortlisted] = Field(
        default_factory=list,
        description="For outcome shortlist: up to five provisions most likely to decide the question, "
        "likeliest "
        "first, each quoted in `citations` in the same order",
    )
    verdict: Verdict | None = Field(
        default=None, description="Yes/no/depends, when the cited text decides a yes/no question"
    )
    plan: list[PlannedProvision] = Field(
        default_factory=list, description="The cited provisions' roles and the paths that brought them in"
    )
    named: list[ResolvedCite] = Field(
        default_factory=list, description="Provisions the question names, resolved or not"
    )
    precedents: list[PrecedentMatch] = Field(
        default_factory=list, description="Similar answered questions (interpretations, never the rule)"
    )
    conditions: list[ConditionCheck] = Field(
        default_factory=list,
        description="The cited rules' conditions and exceptions the question's facts bear on or the verdict "
        "turns on, each checked against those facts",
    )
    governing: list[GoverningRule] = Field(
        default_factory=list,
        description="The rules the answer rests on, governing rule first, each with how sure the selector is "
        "(empty without a trained decision model)",
    )
    related: list[Citation] = Field(
        default_factory=list,
        description="Other provisions the retriever found, shown apart: not what decides the answer",
    )
    elsewhere: Elsewhere | None = Field(
        default=None,
        description="For a refusal or a 'not stated': where similar questions were answered, outside the "
        "corpus",
    )
    figures: list[QuestionFigure] = Field(
        default_factory=list, description="The figures read from the question, each with what it measures"
    )
    set_aside: list[str] = Field(
        default_factory=list,
        description='Activities the question sets aside ("not erecting or dismantling"): rules about them '
        "are not cited as the rule",
    )
    routing: list[CorpusChance] = Field(
        default_factory=list,
        description="Several corpora asked: how likely each is to hold the rule, likeliest first (empty "
        "without a stored router: every corpus named was asked)",
    )
    record_id: str | None = Field(
        default=None, description="Id of this answer's record on the server (`bifrost answers show ID`)"
    )
    warnings: list[str] = Field(
        default_factory=list, description="What the asker should know about how it was served"
    )
