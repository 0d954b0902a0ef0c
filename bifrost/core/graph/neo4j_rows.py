"""Rows to and from Neo4j: provisions as node properties, edges as UNWIND rows, writes in batches.

A relation name is checked (`bifrost.core.relations.check_relation`) when its row is made, so a bad
name never reaches a query.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from bifrost.core.relations import check_relation
from bifrost.core.precedent_types import Precedent
from bifrost.core.requirement_types import Requirement
from bifrost.core.types import Edge, EdgeType, Provision, make_uid

# Provision fields whose stored name differs from the model's.
_TO_STORED = {"order": "ord"}
_FROM_STORED = {v: k for k, v in _TO_STORED.items()}


def section_row(p: Provision) -> dict[str, Any]:
    """A provision's node properties (None fields left out, `order` stored as `ord`)."""
    row = p.model_dump(mode="json", exclude={"uid"})
    row = {_TO_STORED.get(k, k): v for k, v in row.items() if v is not None}
    row["uid"] = p.uid
    return row


def provision_from(props: dict[str, Any]) -> Provision:
    """The provision a Section node's properties describe."""
    data = {_FROM_STORED.get(k, k): v for k, v in props.items() if k not in ("uid", "embedding")}
    return Provision.model_validate(data)


def edge_row(e: Edge) -> dict[str, Any]:
    """An edge's UNWIND row; a RELATES edge's relation name is checked first."""
    row: dict[str, Any] = {
        "source": e.source,
        "target": e.target,
        "text": e.text,
        "section_ids": list(e.section_ids) or None,
    }
    if e.type is EdgeType.RELATES:
        row["relation"] = check_relation(e.relation)
    return row


def chunks(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """Consecutive slices of at most `size` rows, one write transaction each."""
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


def precedent_row(p: Precedent) -> dict[str, Any]:
    """The properties of a (:Precedent) node; citations outside the corpus stay here as ``outside``."""
    row = {
        "uid": make_uid(p.corpus, p.id),
        "corpus": p.corpus,
        "id": p.id,
        "title": p.title,
        "question": p.question,
        "date": p.date,
        "url": p.url,
        "issuer": p.issuer,
        "source": p.source,
        "outside": [c.written for c in p.cites if not c.resolved],
    }
    return {k: v for k, v in row.items() if v not in (None, "")}


def cites_rows(p: Precedent) -> list[dict[str, Any]]:
    """One row per (:Precedent)-[:CITES]->(:Section) edge: each citation the corpus holds, once per target."""
    seen: dict[str, dict[str, Any]] = {}
    for c in p.cites:
        if c.target_id is not None and c.target_id not in seen:
            seen[c.target_id] = {
                "source": make_uid(p.corpus, p.id),
                "target": make_uid(p.corpus, c.target_id),
                "written": c.written,
                "via": c.via,
            }
    return list(seen.values())


def requirement_row(r: Requirement) -> dict[str, Any]:
    """A (:Requirement) node with the section that states it, its conditions and exceptions (as nested
    rows)."""
    return {
        "uid": r.uid,
        "section": make_uid(r.corpus, r.provision_id),
        "corpus": r.corpus,
        "provision_id": r.provision_id,
        "sentence": r.sentence,
        "text": r.text,
        "force": r.force,
        "who": r.who,
        "conditions": [
            {
                "text": c.text,
                "comparator": c.comparator,
                "value": c.value,
                "unit": c.unit,
                "measure": c.measure,
            }
            for c in r.conditions
        ],
        "exceptions": [{"cue": e.cue, "kind": e.kind, "text": e.text} for e in r.exceptions],
    }
