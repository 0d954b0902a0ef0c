"""What the MCP tools and resources do, over the `Bifrost` facade: check the arguments with the
web API's rules, call the facade, shape typed results. Read-only, but for the record of each answer given
(`Bifrost.ask` with ``asked_by``). Every call runs as ``who()``, the caller's `Principal`.

No `mcp` import here: the protocol wiring (and the mapping of errors to MCP errors) is in
`server.py`, so this layer speaks only Bifrost records and `BifrostError`s.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from bifrost.app.facade import Bifrost
from bifrost.app.mcp.models import (
    AskRequest,
    AskResult,
    CitedProvision,
    EntityRequest,
    EntityResult,
    Hit,
    Link,
    NeighboursRequest,
    PrecedentsRequest,
    PrecedentsResult,
    ProvisionResult,
    Reference,
    SearchHit,
    SearchRequest,
    SearchResult,
)
from bifrost.app.mcp.uris import Cursor, provision_uri
from bifrost.app.inputs import InvalidRequest, check_as_of, check_corpus, error_details, one_line
from bifrost.app.team.policy import scoped_corpus
from bifrost.core.access import LOCAL, Principal
from bifrost.core.errors import NotFoundError
from bifrost.core.store.edition_diff import EditionDiff
from bifrost.core.answer_types import RetrievedItem
from bifrost.core.types import EdgeType, NavigatorSubgraph, Provision

R = TypeVar("R", bound=BaseModel)
BROWSABLE = ("part", "subpart", "section", "appendix")
"""The kinds `resources/list` lists (Part 1926: about 800 of its 10,000 provisions); every provision,
paragraphs and definitions too, stays readable through the template ``bifrost://{corpus}/{provision_id}``."""


class ResourceEntry(BaseModel):
    """One provision in the resource listing."""

    uri: str
    name: str
    title: str
    description: str


def checked(model: type[R], **args: object) -> R:
    """``model(**args)``, or `InvalidRequest` with the one-line message the web API gives."""
    try:
        return model(**args)
    except ValidationError as e:
        raise InvalidRequest(one_line(error_details(e.errors()))) from None


def _hits(items: Sequence[RetrievedItem]) -> list[Hit]:
    return [
        Hit(
            rank=i,
            id=it.id,
            score=round(it.score, 6),
            via=[v.value for v in it.via],
            why=it.why,
            path=list(it.path),
        )
        for i, it in enumerate(items, start=1)
    ]


class McpService:
    """The served corpora of one home and the five tools and two resource operations over them."""

    def __init__(
        self,
        bifrost: Bifrost,
        corpora: Sequence[str] | None = None,
        page_size: int = 100,
        who: Callable[[], Principal] = lambda: LOCAL,
        channel: str = "mcp",
    ) -> None:
        if page_size < 1:
            raise ValueError(f"page_size must be at least 1, got {page_size}")
        self.bifrost = bifrost
        self._corpora = list(corpora) if corpora else None
        self.page_size = page_size
        self._load_lock = threading.Lock()
        self._known: frozenset[str] = frozenset()
        # the principal of the call being served (`LOCAL` on stdio and with authentication off)
        self.who = who
        self.channel = channel

    def served(self) -> list[str]:
        """Corpora this server offers: the ones given at startup, else every ingested one."""
        return list(self._corpora) if self._corpora is not None else self.bifrost.corpora()

    def corpora(self) -> list[str]:
        """Corpora offered to the caller: the served ones within its scope."""
        return self.who().readable(self.served())

    def require_corpus(self, corpus: str) -> None:
        """`AccessDenied` outside the caller's scope, `NotFoundError` unless ``corpus`` is served; the
        ingested names are read once and again only for a name not seen yet (a corpus ingested while
        serving)."""
        principal = self.who()
        principal.require_corpus(corpus)
        if self._corpora is None and corpus not in self._known:
            self._known = frozenset(self.bifrost.corpora())
        check_corpus(
            corpus, principal.readable(self._corpora if self._corpora is not None else sorted(self._known))
        )

    def warm_up(self) -> None:
        """Load each corpus's retriever (models and indexes) so the first call is fast."""
        for corpus in self.served():
            self._retriever(corpus)

    def _retriever(self, corpus: str) -> None:
        with self._load_lock:  # indexes load once, even when calls arrive together
            self.bifrost.warm_up(corpus)

    def _provision(self, corpus: str, provision_id: str) -> Provision:
        p = self.bifrost.provision(corpus, provision_id)
        if p is None:
            raise NotFoundError(f"provision {provision_id!r} is not in corpus {corpus!r}")
        return p

    # --- tools ---
    def ask(self, question: str, corpus: str, as_of: str | None = None) -> AskResult:
        req = checked(AskRequest, question=question, corpus=corpus, as_of=as_of)
        principal = self.who()
        readable = self.corpora()
        corpus = scoped_corpus(req.corpus, readable, principal)
        check_corpus(corpus, readable, several=True)
        as_of = check_as_of(req.as_of)
        self._retriever(corpus)
        answer = self.bifrost.ask(req.question, corpus, as_of=as_of, asked_by=principal, channel=self.channel)
        return AskResult(
            question=answer.question,
            corpus=answer.corpus,
            mode=answer.mode.value,
            refused=answer.refused,
            text=answer.text,
            statements=answer.statements,
            citations=[
                CitedProvision(id=c.id, heading=c.heading, url=c.url, uri=provision_uri(c.corpus, c.id))
                for c in answer.citations
            ],
            retrieved=_hits(answer.retrieved),
            edition=answer.edition,
            note=answer.note,
            outcome=answer.outcome.value,
            verdict=answer.verdict,
            plan=answer.plan,
            named=answer.named,
            precedents=answer.precedents,
            record_id=answer.record_id,
            warnings=answer.warnings,
            conditions=answer.conditions,
            governing=answer.governing,
            related=[
                CitedProvision(
                    id=c.id, heading=c.heading, url=c.url, uri=provision_uri(c.corpus, c.id), text=c.text
                )
                for c in answer.related
            ],
            shortlist=answer.shortlist,
            elsewhere=answer.elsewhere,
            routing=answer.routing,
        )

    def precedents(self, question: str, corpus: str, k: int = 5) -> PrecedentsResult:
        req = checked(PrecedentsRequest, question=question, corpus=corpus, k=k)
        self.require_corpus(req.corpus)
        self._retriever(req.corpus)
        return PrecedentsResult(
            question=req.question,
            corpus=req.corpus,
            precedents=self.bifrost.similar_precedents(req.question, req.corpus, req.k),
        )

    def search(self, query: str, corpus: str, k: int = 10) -> SearchResult:
        req = checked(SearchRequest, query=query, corpus=corpus, k=k)
        self.require_corpus(req.corpus)
        self._retriever(req.corpus)
        hits = _hits(self.bifrost.search(req.query, req.corpus, req.k))
        # one query, not k
        found = {p.id: p for p in self.bifrost.sql.provisions(req.corpus, [h.id for h in hits])}
        results = []
        for hit in hits:
            p = found.get(hit.id)
            results.append(
                SearchHit(
                    **hit.model_dump(),
                    heading=p.heading if p else "",
                    text=p.text if p else "",
                    url=p.url if p else None,
                    uri=provision_uri(req.corpus, hit.id),
                )
            )
        return SearchResult(query=req.query, corpus=req.corpus, results=results)

    def provision(self, id: str, corpus: str) -> ProvisionResult:  # noqa: A002 - the tool's argument name
        self.require_corpus(corpus)
        view = self.bifrost.show(corpus, id)
        p = view.provision

        def link(pid: str, heading: str = "") -> Link:
            return Link(id=pid, heading=heading, uri=provision_uri(corpus, pid))

        return ProvisionResult(
            corpus=corpus,
            id=p.id,
            kind=p.kind.value,
            heading=p.heading,
            text=p.text,
            url=p.url,
            uri=provision_uri(corpus, p.id),
            parent=link(view.parent.id, view.parent.heading) if view.parent else None,
            children=[link(c.id, c.heading) for c in view.children],
            references_out=[
                Reference(id=r["id"], text=r["text"], uri=provision_uri(corpus, r["id"]))
                for r in view.references_out
            ],
            references_in=[
                Reference(id=r["id"], text=r["text"], uri=provision_uri(corpus, r["id"]))
                for r in view.references_in
            ],
            dangling_references=[r["raw"] for r in view.dangling_references],
        )

    def neighbours(
        self, id: str, corpus: str, depth: int = 1, kinds: Sequence[str] | None = None
    ) -> NavigatorSubgraph:  # noqa: A002
        args: dict[str, object] = {"id": id, "corpus": corpus, "depth": depth}
        if kinds is not None:
            args["kinds"] = list(kinds)
        req = checked(NeighboursRequest, **args)
        self.require_corpus(req.corpus)
        return self.bifrost.neighbourhood(req.corpus, req.id, req.depth, [EdgeType(k) for k in req.kinds])

    def diff(self, corpus: str, since: str | None = None, to: str | None = None) -> EditionDiff:
        """What changed between two editions (numbers or dates; default: previous -> current)."""
        self.require_corpus(corpus)
        return self.bifrost.diff(corpus, check_as_of(since), check_as_of(to))

    def entity(self, name: str, corpus: str) -> EntityResult:
        req = checked(EntityRequest, name=name, corpus=corpus)
        self.require_corpus(req.corpus)
        self._retriever(req.corpus)
        return EntityResult.model_validate(self.bifrost.entity_view(req.corpus, req.name).model_dump())

    # --- resources ---
    def resource_page(self, token: str | None) -> tuple[list[ResourceEntry], str | None]:
        """One page of the listing (corpus by corpus, document order) and the cursor of the next: what a
        client browses (parts, subparts, sections, appendices); paragraphs are read through the resource
        template."""
        corpora = self.corpora()
        if not corpora:
            return [], None
        cursor = Cursor.decode(token) if token else Cursor(corpus=corpora[0], offset=0)
        if cursor.corpus not in corpora:
            raise InvalidRequest(
                f"cursor names corpus {cursor.corpus!r}, which this server does not serve; list again "
                "without a cursor"
            )
        rows = self.bifrost.provisions_page(cursor.corpus, cursor.offset, self.page_size + 1, BROWSABLE)
        if len(rows) > self.page_size:
            nxt: Cursor | None = Cursor(corpus=cursor.corpus, offset=cursor.offset + self.page_size)
        else:
            i = corpora.index(cursor.corpus)
            nxt = Cursor(corpus=corpora[i + 1], offset=0) if i + 1 < len(corpora) else None
        entries = [
            ResourceEntry(
                uri=provision_uri(p.corpus, p.id),
                name=p.uid,
                title=f"{p.id} {p.heading}".strip(),
                description=(p.text[:200] + ("…" if len(p.text) > 200 else "")) or p.kind.value,
            )
            for p in rows[: self.page_size]
        ]
        return entries, nxt.encode() if nxt else None

    def read_provision(self, corpus: str, provision_id: str) -> str:
        """A provision as plain text: id and heading, text, official URL."""
        self.require_corpus(corpus)
        p = self._provision(corpus, provision_id)
        parts = [f"{p.id} {p.heading}".strip(), p.text.strip(), f"Official text: {p.url}" if p.url else ""]
        return "\n\n".join(x for x in parts if x) + "\n"
