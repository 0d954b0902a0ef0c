"""Turn provisions into retrieval documents, shared by every baseline.

Section nodes often have no text of their own (`1926.651` holds only a heading) although
questions cite them, so a mode decides what text a node stands for:
``own`` heading + text; ``context`` also prefixes the section heading (default);
``aggregate`` gives nodes with children their descendants' text too (capped).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bifrost.core.settings import Settings
from bifrost.core.provisions import CONTAINER_KINDS
from bifrost.core.types import Provision, ProvisionKind, content_hash

MODES = ("own", "context", "aggregate")


@dataclass(frozen=True)
class Documents:
    """Provision ids and the text that stands for each, in corpus order."""

    ids: list[str]
    texts: list[str]

    @property
    def fingerprint(self) -> str:
        """Content hash of ids and texts (keys caches of embeddings)."""
        return content_hash(*self.ids, *self.texts)


def index_folder(home: Path, corpus: str) -> Path:
    """The folder of a corpus's index files in a home (dense matrix, BM25 index, entity matrices)."""
    return Path(home) / "index" / re.sub(r"[^A-Za-z0-9._-]+", "_", corpus)


def load_provisions(settings: Settings, corpus: str, edition: int | None = None) -> list[Provision]:
    """Provisions of an ingested corpus from the SQL store: the current edition, or those valid in
    edition number ``edition`` (point-in-time questions)."""
    from bifrost.core.store.sql_store import SqlStore

    store = SqlStore(settings.sql_url)
    try:
        return store.provisions(corpus) if edition is None else store.provisions_at(corpus, edition)
    finally:
        store.dispose()


def _own(p: Provision) -> str:
    return " ".join(x for x in (p.term or "", p.heading, p.text) if x).strip()


def build_documents(
    provisions: Sequence[Provision],
    mode: str = "context",
    aggregate_chars: int = 2000,
    skip_kinds: frozenset[ProvisionKind] = CONTAINER_KINDS,
) -> Documents:
    """One document per provision with text; parts and subparts (containers) skipped by default."""
    if mode not in MODES:
        raise ValueError(f"document mode {mode!r}: use one of {', '.join(MODES)}")
    by_id = {p.id: p for p in provisions}
    children: dict[str, list[str]] = defaultdict(list)
    for p in provisions:
        if p.parent_id:
            children[p.parent_id].append(p.id)

    def section_heading(p: Provision) -> str:
        cur = by_id.get(p.parent_id) if p.parent_id else None
        while cur is not None and cur.kind != ProvisionKind.SECTION:
            cur = by_id.get(cur.parent_id) if cur.parent_id else None
        return cur.heading if cur is not None else ""

    def descendants_text(pid: str) -> str:
        parts, stack, size = [], list(reversed(children.get(pid, []))), 0
        while stack and size < aggregate_chars:
            c = by_id[stack.pop()]
            t = _own(c)
            parts.append(t)
            size += len(t) + 1
            stack.extend(reversed(children.get(c.id, [])))
        return " ".join(parts)[:aggregate_chars]

    ids, texts = [], []
    for p in provisions:
        if p.kind in skip_kinds or p.reserved:
            continue
        text = _own(p)
        if mode in ("context", "aggregate") and p.kind != ProvisionKind.SECTION:
            text = f"{section_heading(p)} {text}".strip()
        if mode == "aggregate" and children.get(p.id):
            text = f"{text} {descendants_text(p.id)}".strip()
        if text:
            ids.append(p.id)
            texts.append(text)
    return Documents(ids, texts)
