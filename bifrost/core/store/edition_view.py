"""A provision and its navigator neighbourhood as they stood in one edition, read from SQL.

The graph stores hold the current edition only; an earlier one is rebuilt from the history
tables (`provisions_at`, `references_at`), so `graph show --as-of` never shows a later text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bifrost.core.errors import NotFoundError
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edition, Provision


@dataclass(frozen=True)
class EditionNeighbourhood:
    """One provision of an edition with its parent, children and references in and out."""

    provision: Provision
    parent: Provision | None
    children: list[Provision]
    references_out: list[tuple[str, str]] = field(default_factory=list)  # (target id, raw text)
    references_in: list[tuple[str, str]] = field(default_factory=list)  # (source id, raw text)
    dangling: list[tuple[str, str | None]] = field(default_factory=list)  # (raw text, reason)


def neighbourhood_at(sql: SqlStore, edition: Edition, provision_id: str) -> EditionNeighbourhood:
    """The provision ``provision_id`` as of ``edition``; NotFoundError when it was not valid then."""
    corpus = edition.corpus
    provisions = {p.id: p for p in sql.provisions_at(corpus, edition.number)}
    p = provisions.get(provision_id)
    if p is None:
        when = f"edition {edition.number}" + (f" ({edition.date})" if edition.date else "")
        raise NotFoundError(f"provision {provision_id!r} is not in corpus {corpus!r} as of {when}")
    refs = sql.references_at(corpus, edition.number)
    resolved = [r for r in refs if r.target_id in provisions and r.target_id != r.source_id]
    return EditionNeighbourhood(
        provision=p,
        parent=provisions.get(p.parent_id) if p.parent_id else None,
        children=[c for c in provisions.values() if c.parent_id == provision_id],
        references_out=list(
            dict.fromkeys((r.target_id, r.raw) for r in resolved if r.source_id == provision_id)
        ),
        references_in=list(
            dict.fromkeys((r.source_id, r.raw) for r in resolved if r.target_id == provision_id)
        ),
        dangling=[(r.raw, r.reason) for r in refs if r.source_id == provision_id and r.target_id is None],
    )
