"""Typed records shared by every part of Bifrost.

Records crossing a module boundary live here, as frozen pydantic models, so that the
scraper, the graph builders, retrieval and evaluation agree on one shape (over 400 lines: one
place for every record, each a few lines). Keys are built
in one place (`Provision.uid`, `make_uid`).
"""

from __future__ import annotations

import hashlib
from enum import Enum

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from bifrost.core.precedent_types import PrecedentMatch, ResolvedCite


def make_uid(corpus: str, provision_id: str) -> str:
    """The unique key of a provision across corpora: ``corpus:id``."""
    return f"{corpus}:{provision_id}"


def split_uid(uid: str) -> tuple[str, str]:
    """Inverse of :func:`make_uid`."""
    corpus, _, pid = uid.partition(":")
    return corpus, pid


def content_hash(*parts: str) -> str:
    """Stable short hash of text parts, used to detect changed provisions."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()[:16]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ProvisionKind(str, Enum):
    PART = "part"
    SUBPART = "subpart"
    SECTION = "section"
    PARAGRAPH = "paragraph"
    DEFINITION = "definition"
    NOTE = "note"
    APPENDIX = "appendix"


class Provision(Frozen):
    """One addressable unit of a rulebook: part, subpart, section, paragraph, definition, note."""

    corpus: str
    id: str = Field(description="Official citation, e.g. 1926.451(b)(2)(i)")
    parent_id: str | None = None
    kind: ProvisionKind
    heading: str = ""
    text: str = ""
    level: int = 0
    order: int = 0
    url: str | None = None
    pages: tuple[int, ...] = ()
    term: str | None = Field(default=None, description="Defined term, for definitions")
    source_note: str | None = Field(default=None, description="e.g. [61 FR 46104, Aug. 30, 1996]")
    reserved: bool = False
    document: str | None = Field(default=None, description="Source document name")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def uid(self) -> str:
        return make_uid(self.corpus, self.id)

    @property
    def parent_uid(self) -> str | None:
        return make_uid(self.corpus, self.parent_id) if self.parent_id else None

    @property
    def hash(self) -> str:
        """Hash of what an extractor reads (kind, heading, text, parent): keys the extraction journal."""
        return content_hash(self.kind.value, self.heading, self.text, self.parent_id or "")

    @property
    def version_hash(self) -> str:
        """Hash of every field: any change (order, url, level, pages, term, reserved...) makes a new version."""
        return content_hash(self.model_dump_json(exclude={"uid"}))


class Reference(Frozen):
    """A cross-reference found in a provision's text.

    ``target_id`` is None when the reference is dangling (outside the corpus, or rejected by
    the citation grammar); the raw text is always kept so it can be counted and reviewed.
    """

    corpus: str
    source_id: str
    raw: str
    target_id: str | None = None
    reason: str | None = Field(default=None, description="Why a reference is dangling")
    extractor: str = "rules"

    @property
    def dangling(self) -> bool:
        return self.target_id is None


class EdgeType(str, Enum):
    HAS = "HAS"
    REFERS_TO = "REFERS_TO"
    MENTIONED_IN = "MENTIONED_IN"
    RELATES = "RELATES"


class Edge(Frozen):
    """A directed edge between two graph nodes, keyed by node uids."""

    type: EdgeType
    source: str
    target: str
    text: str | None = None
    relation: str | None = Field(default=None, description="snake_case relation type for RELATES")
    section_ids: tuple[str, ...] = ()


class SourceDocument(Frozen):
    """A file or page that provisions were read from."""

    corpus: str
    name: str
    format: str
    checksum: str
    edition: str | None = None
    url: str | None = None


class Edition(Frozen):
    """One recorded state of a corpus: what an ingest changed, from which sources, valid from a date.

    Edition 0 stands for provisions stored before editions were recorded (no date).
    """

    corpus: str
    number: int
    date: str | None = Field(default=None, description="ISO date (YYYY-MM-DD) from which this edition is valid")
    sources: tuple[str, ...] = ()
    content_hash: str = ""
    added: int = 0
    changed: int = 0
    removed: int = 0


class ParsedDocument(Frozen):
    """What a scraper returns: the document and its provisions, plus anything it found odd."""

    document: SourceDocument
    provisions: tuple[Provision, ...]
    oddities: tuple[str, ...] = ()


class ReviewItem(Frozen):
    """Two sources disagree about one provision: both texts and the diff, for a human."""

    corpus: str
    provision_id: str
    source_a: str
    source_b: str
    text_a: str
    text_b: str
    diff: str
    ratio: float


class NavigatorReport(BaseModel):
    """What a navigator build wrote."""

    corpus: str
    sections: int = 0
    sections_removed: int = 0
    edges_removed: int = 0
    references_added: int = 0
    references_retired: int = 0
    has_edges: int = 0
    refers_to_edges: int = 0
    dangling: int = 0
    dangling_by_reason: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0


class IngestReport(BaseModel):
    """What one ingest run did, per file and overall."""

    corpus: str
    files_ok: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    added: int = 0
    updated: list[str] = Field(default_factory=list)
    unchanged: int = 0
    verified: int = 0
    review_items: int = 0
    oddities: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    edition: Edition | None = Field(default=None, description="The edition this ingest recorded; None when nothing changed")
    navigator: NavigatorReport | None = Field(default=None, description="The navigator build that followed (None: not built)")


class GraphStats(BaseModel):
    """Counts of a corpus graph, for `bifrost graph stats`."""

    corpus: str
    nodes_by_kind: dict[str, int] = Field(default_factory=dict)
    edges_by_type: dict[str, int] = Field(default_factory=dict)
    dangling_references: int = 0
    entities: int = 0
    relations: int = 0
    notes: list[str] = Field(default_factory=list, description="What a user of this corpus should know (one line each)")


class Reached(Frozen):
    """A node reached by a traversal, with how it was reached and the path of uids."""

    uid: str
    via: str
    depth: int
    path: tuple[str, ...]


def entity_uid(corpus: str, name: str) -> str:
    """The unique key of an entity node: ``corpus:entity:name``."""
    return f"{corpus}:entity:{name}"


class Entity(Frozen):
    """A node of the Entity Network Graph, with the provisions that mention it."""

    corpus: str
    name: str
    label: str = ""
    section_ids: tuple[str, ...] = ()

    @property
    def uid(self) -> str:
        return entity_uid(self.corpus, self.name)


class Triple(Frozen):
    """A relation ``[head, relation, tail]`` between two entities, stated in some provisions."""

    corpus: str
    head: str
    relation: str
    tail: str
    section_ids: tuple[str, ...] = ()


class ExtractedEntity(Frozen):
    """An entity as an extractor (offline or LLM agent) found it in one provision."""

    name: str
    label: str = ""
    definition: str = ""


class ExtractedTriple(Frozen):
    """A triple as an extractor found it; relation is snake_case."""

    head: str
    relation: str
    tail: str


class Extraction(Frozen):
    """Everything an extractor found in one provision."""

    corpus: str
    provision_id: str
    entities: tuple[ExtractedEntity, ...] = ()
    triples: tuple[ExtractedTriple, ...] = ()
    section_refs: tuple[str, ...] = Field(default=(), description="Referenced provision ids (validated)")
    extractor: str = "offline"


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
    why: str = Field(default="", description="Human-readable reason, e.g. 'cross-reference from 1926.501(b)(2)(i)'")


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
            raise ValueError(f"quote of {self.provision_id}: span {self.start}..{self.end} does not fit a text of {len(self.text)} characters")
        return self


class Statement(Frozen):
    """One sentence of an answer, the provision ids it cites and the quoted span of each."""

    text: str
    citations: tuple[str, ...]
    quotes: tuple[Quote, ...] = Field(default=(), description="Verified spans of the cited provisions' text")
    corpus: str | None = Field(default=None, description="Corpus of the cited provisions, set when an answer spans several")
    role: str | None = Field(default=None, description="What the cited provision does in the answer: verdict, rule, "
                                                        "exception, condition, procedure, definition, or open (what none of them says)")


class PlannedProvision(Frozen):
    """A provision the answer plan chose: its role, the provision ids that led to it (itself last), and why."""

    id: str
    role: str
    path: tuple[str, ...] = ()
    reason: str = ""


class Verdict(Frozen):
    """A yes/no answer the cited text decides: the value, the provision that decides it and its words."""

    value: Literal["yes", "no", "depends"]
    provision_id: str
    words: str = Field(description="The sentence of the provision that decides it, as stored")
    reason: str = Field("", description="Why, in one clause naming the provisions ('1926.451(g)(1) requires it')")
    see_also: list[str] = Field(default_factory=list, description="Other provisions the reason names")


class ConditionCheck(Frozen):
    """A cited rule's condition or exception against the question's facts (`retrieval.answer.applicability`)."""

    provision_id: str
    sentence: int = Field(description="Which sentence of the provision states it (0-based)")
    kind: Literal["quantity", "exception"]
    text: str = Field(description="The condition as the rule writes it, or the exception's clause")
    comparator: str = Field(default="", description='">=", "<=", ">", "<" for a threshold')
    measure: str = Field(default="", description="What a quantity measures (height, depth, ...), or an exception's cue")
    status: Literal["met", "not_met", "not_stated", "stated"] = Field(
        description="met / not_met: the question's figure against the threshold; not_stated: the question does not "
                    "say; stated: the question takes the exception up (whether it applies is for the reader)")
    fact: str = Field(default="", description="The question's figure it was checked against")


class Outcome(str, Enum):
    """How a question was answered: the text states it; the closest provisions do not state it; out of scope."""

    ANSWERED = "answered"
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
    edition: Edition | None = Field(default=None, description="The past edition answered from (None: the current one)")
    note: str | None = Field(default=None, description="How a past edition was ranked (the entity network is current only)")
    outcome: Outcome = Field(default=Outcome.ANSWERED, description="answered, not_stated (the closest provisions are quoted and "
                                                                   "none states it) or refused (out of scope)")
    verdict: Verdict | None = Field(default=None, description="Yes/no/depends, when the cited text decides a yes/no question")
    plan: list[PlannedProvision] = Field(default_factory=list, description="The cited provisions' roles and the paths that brought them in")
    named: list[ResolvedCite] = Field(default_factory=list, description="Provisions the question names, resolved or not")
    precedents: list[PrecedentMatch] = Field(default_factory=list, description="Similar answered questions (interpretations, "
                                                                             "never the rule)")
    conditions: list[ConditionCheck] = Field(default_factory=list, description="Each cited rule's conditions and "
                                                                              "exceptions against the question's facts")
    record_id: str | None = Field(default=None, description="Id of this answer's record on the server (`bifrost answers show ID`)")
    warnings: list[str] = Field(default_factory=list, description="What the asker should know about how it was served")


class SubgraphNode(Frozen):
    """A provision in a navigator subgraph, with its distance from the root."""

    id: str
    kind: ProvisionKind
    heading: str = ""
    depth: int = Field(ge=0)


class SubgraphEdge(Frozen):
    """A HAS or REFERS_TO edge of a navigator subgraph, by provision ids, in its true direction."""

    type: EdgeType
    source: str
    target: str
    text: str | None = Field(default=None, description="The citation text of a REFERS_TO edge")


class NavigatorSubgraph(Frozen):
    """The Document Navigator Graph around one provision, up to a depth, along some edge types."""

    corpus: str
    root: str
    depth: int
    kinds: tuple[EdgeType, ...]
    nodes: tuple[SubgraphNode, ...]
    edges: tuple[SubgraphEdge, ...]
    truncated: bool = Field(default=False, description="True when the node limit stopped the walk early")
