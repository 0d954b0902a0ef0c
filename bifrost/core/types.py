"""Typed records shared by every part of Bifrost.

Records crossing a module boundary live here, as frozen pydantic models, so that the
scraper, the graph builders, retrieval and evaluation agree on one shape; an answer's records are in
`answer_types.py`, precedents' and requirements' in their own modules. Keys are built
in one place (`Provision.uid`, `make_uid`).
"""

from __future__ import annotations

import hashlib
from enum import Enum


from pydantic import BaseModel, ConfigDict, Field, computed_field


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
        """Hash of every field: any change (order, url, level, pages, term, reserved...) makes a new
        version."""
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
    date: str | None = Field(
        default=None, description="ISO date (YYYY-MM-DD) from which this edition is valid"
    )
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
    edition: Edition | None = Field(
        default=None, description="The edition this ingest recorded; None when nothing changed"
    )
    navigator: NavigatorReport | None = Field(
        default=None, description="The navigator build that followed (None: not built)"
    )


class GraphStats(BaseModel):
    """Counts of a corpus graph, for `bifrost graph stats`."""

    corpus: str
    nodes_by_kind: dict[str, int] = Field(default_factory=dict)
    edges_by_type: dict[str, int] = Field(default_factory=dict)
    dangling_references: int = 0
    entities: int = 0
    relations: int = 0
    notes: list[str] = Field(
        default_factory=list, description="What a user of this corpus should know (one line each)"
    )


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
