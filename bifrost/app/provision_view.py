"""What `bifrost graph show`, the web provision page and the MCP `provision` tool display of one
provision: its text, parent, children, references in and out, dangling references and earlier
versions, read from the stores (current edition) or from the SQL history (a past edition)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from bifrost.core.errors import NotFoundError
from bifrost.core.graph.base import GraphStore
from bifrost.core.store.edition_diff import word_diff
from bifrost.core.store.edition_view import neighbourhood_at
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edition, Provision, make_uid, split_uid


class Neighbour(BaseModel):
    """A provision next to another one in the navigator graph."""

    id: str
    heading: str = ""
    text: str | None = None


class ProvisionView(BaseModel):
    """A provision with its neighbourhood in both graphs, for `graph show` and the web page."""

    provision: Provision
    parent: Neighbour | None = None
    children: list[Neighbour] = Field(default_factory=list)
    references_out: list[dict] = Field(default_factory=list)
    references_in: list[dict] = Field(default_factory=list)
    dangling_references: list[dict] = Field(default_factory=list)
    edition: Edition | None = Field(
        default=None, description="The edition shown when it is not the current one"
    )
    history: list[dict] = Field(
        default_factory=list, description="Earlier versions: edition range, change, text, word diff"
    )


def _neighbour(graph: GraphStore, uid: str) -> Neighbour:
    p = graph.get_section(uid)
    return Neighbour(id=split_uid(uid)[1], heading=p.heading if p else "")


def provision_view(sql: SqlStore, graph: GraphStore, corpus: str, provision_id: str) -> ProvisionView:
    """A current provision with its neighbourhood in the navigator graph and its earlier versions; a
    retired or unknown id is a one-line `NotFoundError` (saying in which edition it was removed)."""
    uid = make_uid(corpus, provision_id)
    p = graph.get_section(uid)
    if p is None:
        retired = [v for v in sql.versions_of(corpus, provision_id) if v[2] == "removed"]
        if retired:
            gone = sql.edition(corpus, retired[0][1])
            raise NotFoundError(
                f"provision {provision_id!r} of {corpus!r} was removed in edition {gone.number} "
                f"({gone.date or 'undated'}); show it with --as-of {retired[0][0]} (an earlier edition)"
            )
        raise NotFoundError(f"provision {provision_id!r} is not in corpus {corpus!r}")
    parent = graph.parent(uid)
    dangling = [
        {"raw": r.raw, "reason": r.reason}
        for r in sql.references(corpus, dangling=True)
        if r.source_id == provision_id
    ]
    return ProvisionView(
        provision=p,
        parent=_neighbour(graph, parent) if parent else None,
        children=[_neighbour(graph, c) for c in graph.children(uid)],
        references_out=[{"id": split_uid(t)[1], "text": raw} for t, raw in graph.references_out(uid)],
        references_in=[{"id": split_uid(s)[1], "text": raw} for s, raw in graph.references_in(uid)],
        dangling_references=dangling,
        history=history(sql, corpus, p),
    )


def provision_at(sql: SqlStore, edition: Edition, provision_id: str) -> ProvisionView:
    """A provision as it stood in a past edition, with that edition's neighbourhood."""
    n = neighbourhood_at(sql, edition, provision_id)
    return ProvisionView(
        provision=n.provision,
        parent=Neighbour(id=n.parent.id, heading=n.parent.heading) if n.parent else None,
        children=[Neighbour(id=c.id, heading=c.heading) for c in n.children],
        references_out=[{"id": t, "text": raw} for t, raw in n.references_out],
        references_in=[{"id": s, "text": raw} for s, raw in n.references_in],
        dangling_references=[{"raw": raw, "reason": reason} for raw, reason in n.dangling],
        edition=edition,
    )


def history(sql: SqlStore, corpus: str, current: Provision) -> list[dict]:
    """Earlier versions of a provision: edition range, change, text and a word diff to the current text."""
    dates = {e.number: e.date for e in sql.editions(corpus)}
    return [
        {
            "valid_from": frm,
            "valid_to": to,
            "until": dates.get(to),
            "change": change,
            "text": old.text,
            "heading": old.heading,
            "diff": word_diff(old.text, current.text),
        }
        for frm, to, change, old in sql.versions_of(corpus, current.id)
    ]
