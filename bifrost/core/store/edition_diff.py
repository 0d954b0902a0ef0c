"""What changed between two editions of a corpus (`bifrost diff`, the web app, the MCP server).

Provisions added, removed and changed (with the fields that changed and a word-level diff of the
text), REFERS_TO edges added and removed, references that became dangling because their target
was repealed (the alert a compliance engineer needs), and entities added and removed when the
entity network was built in both editions.
"""

from __future__ import annotations

import difflib
import re

from pydantic import BaseModel, Field

from bifrost.core.store import entity_tables
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edition, Provision, Reference

_WORDS = re.compile(r"\S+|\s+")
# Every field but the document order (an insertion shifts the order of everything after it).
COMPARED = (
    "parent_id",
    "kind",
    "heading",
    "text",
    "level",
    "url",
    "pages",
    "term",
    "source_note",
    "reserved",
)
MOVED_SIMILARITY = 0.9  # a removed and an added provision this alike are one provision renumbered


def word_diff(old: str, new: str) -> str:
    """A word-level diff: removed words as ``[-...-]``, added ones as ``{+...+}``, the rest as is."""
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            parts.append("".join(a[i1:i2]))
            continue
        if i2 > i1:
            parts.append(f"[-{''.join(a[i1:i2]).strip()}-]")
        if j2 > j1:
            parts.append(f"{{+{''.join(b[j1:j2]).strip()}+}}")
        if op == "replace" or i2 > i1 or j2 > j1:
            parts.append(" ")
    return re.sub(r" {2,}", " ", "".join(parts)).strip()


class ProvisionChange(BaseModel):
    """One provision that differs between the editions."""

    id: str
    fields: list[str]
    text_diff: str = ""
    old_text: str = ""
    new_text: str = ""


class ReferenceChange(BaseModel):
    """A REFERS_TO edge (source cites target, with the raw citation text)."""

    source: str
    target: str
    text: str


class Move(BaseModel):
    """A provision renumbered: removed under one id, added under another with (nearly) the same text."""

    old_id: str
    new_id: str
    similarity: float


class DanglingAlert(BaseModel):
    """A provision of the newer edition whose citation resolved before and now points at nothing."""

    source: str
    text: str
    was_target: str
    target_status: str = Field(
        description="'removed' when the target was repealed, else 'renumbered or unresolved'"
    )


class EditionDiff(BaseModel):
    """Everything that differs from one edition to another."""

    corpus: str
    from_edition: Edition
    to_edition: Edition
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[ProvisionChange] = Field(default_factory=list)
    moved: list[Move] = Field(
        default_factory=list, description="renumbered provisions (also in removed and added)"
    )
    refers_to_added: list[ReferenceChange] = Field(default_factory=list)
    refers_to_removed: list[ReferenceChange] = Field(default_factory=list)
    newly_dangling: list[DanglingAlert] = Field(default_factory=list)
    entities_added: list[str] | None = Field(
        default=None, description="None when not recorded for both editions"
    )
    entities_removed: list[str] | None = None


def provision_change(old: Provision, new: Provision) -> ProvisionChange | None:
    """How two versions of a provision differ, or None when they do not."""
    fields = [f for f in COMPARED if getattr(old, f) != getattr(new, f)]
    if not fields:
        return None
    if "text" not in fields:
        return ProvisionChange(id=new.id, fields=fields)
    return ProvisionChange(
        id=new.id,
        fields=fields,
        text_diff=word_diff(old.text, new.text),
        old_text=old.text,
        new_text=new.text,
    )


def moves(removed: list[Provision], added: list[Provision]) -> list[Move]:
    """Pair removed and added provisions of the same kind that are one provision renumbered.

    Alike means texts at least `MOVED_SIMILARITY` similar, or the same defined term.
    """

    def words(p: Provision) -> str:
        return f"{p.heading} {p.text}".strip()

    found, taken = [], set()
    for old in removed:
        if not words(old):
            continue
        best: tuple[float, str] | None = None
        for new in added:
            if new.id in taken or new.kind != old.kind or not words(new):
                continue
            ratio = difflib.SequenceMatcher(a=words(old), b=words(new), autojunk=False).ratio()
            same_term = bool(old.term) and old.term == new.term  # a definition moved to another paragraph
            if (ratio >= MOVED_SIMILARITY or same_term) and (best is None or ratio > best[0]):
                best = (ratio, new.id)
        if best:
            taken.add(best[1])
            found.append(Move(old_id=old.id, new_id=best[1], similarity=round(best[0], 3)))
    return found


def _edges(refs: list[Reference]) -> dict[tuple[str, str], str]:
    edges: dict[tuple[str, str], str] = {}
    for r in refs:
        if r.target_id and r.target_id != r.source_id:
            edges.setdefault((r.source_id, r.target_id), r.raw)
    return edges


def dangling_alerts(
    old_refs: list[Reference], new_refs: list[Reference], new_ids: set[str]
) -> list[DanglingAlert]:
    """Citations that resolved in the older edition and are dangling in the newer one."""
    resolved = {(r.source_id, r.raw): r.target_id for r in old_refs if r.target_id}
    alerts = []
    for r in new_refs:
        was = resolved.get((r.source_id, r.raw))
        if r.target_id is None and was:
            status = "removed" if was not in new_ids else "renumbered or unresolved"
            alerts.append(DanglingAlert(source=r.source_id, text=r.raw, was_target=was, target_status=status))
    return alerts


def snapshot_entities(sql: SqlStore, corpus: str) -> int:
    """Record the entity names of the current edition (after an entity build), for later diffs."""
    with sql.session() as s:
        names = sorted(e.name for e in entity_tables.load_entities(s, corpus))
    sql.set_meta(corpus, f"entities@{sql.edition(corpus).number}", {"names": names})
    return len(names)


def _entity_names(sql: SqlStore, corpus: str, edition: int) -> set[str] | None:
    snap = sql.get_meta(corpus, f"entities@{edition}")
    return set(snap["names"]) if snap else None


def diff_editions(sql: SqlStore, corpus: str, old: Edition, new: Edition) -> EditionDiff:
    """Compare two editions of a corpus as stored in SQL."""
    before = {p.id: p for p in sql.provisions_at(corpus, old.number)}
    after = {p.id: p for p in sql.provisions_at(corpus, new.number)}
    changes = [c for i in after.keys() & before.keys() if (c := provision_change(before[i], after[i]))]
    old_refs, new_refs = sql.references_at(corpus, old.number), sql.references_at(corpus, new.number)
    e_old, e_new = _edges(old_refs), _edges(new_refs)
    ents_old, ents_new = _entity_names(sql, corpus, old.number), _entity_names(sql, corpus, new.number)
    both = ents_old is not None and ents_new is not None
    order = {pid: p.order for pid, p in {**before, **after}.items()}
    added = sorted(after.keys() - before.keys(), key=order.get)
    removed = sorted(before.keys() - after.keys(), key=order.get)
    return EditionDiff(
        corpus=corpus,
        from_edition=old,
        to_edition=new,
        added=added,
        removed=removed,
        moved=moves([before[i] for i in removed], [after[i] for i in added]),
        changed=sorted(changes, key=lambda c: order[c.id]),
        refers_to_added=[
            ReferenceChange(source=s, target=t, text=e_new[s, t])
            for s, t in sorted(e_new.keys() - e_old.keys())
        ],
        refers_to_removed=[
            ReferenceChange(source=s, target=t, text=e_old[s, t])
            for s, t in sorted(e_old.keys() - e_new.keys())
        ],
        newly_dangling=dangling_alerts(old_refs, new_refs, set(after)),
        entities_added=sorted(ents_new - ents_old) if both else None,
        entities_removed=sorted(ents_old - ents_new) if both else None,
    )
