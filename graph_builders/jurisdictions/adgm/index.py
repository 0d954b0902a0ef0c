"""Lookup of ADGM passages by (DocumentID, PassageID), for resolving cross-references to UUIDs.

Besides the full normalized PassageID (`Part 6.Chapter 1.58.(2)`), a passage is found by the
number it is cited by: its rule key (`58.(2)`, FUNDS `9.2.1` for `PART 4.9.2.1`), in an
appendix its rule without the appendix (`A4.3.2` for `APP4.A4.3.2`), and in a schedule its
paragraph without the schedule's Parts (`Schedule 1.87` for `Schedule 1.Part 7.87`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bifrost.core.errors import CitationError
from bifrost.core.types import Provision
from bifrost.graph_builders.jurisdictions.adgm.citation import AdgmCitation
from bifrost.graph_builders.jurisdictions.adgm.documents import ADGM_DOCUMENTS, AdgmDocument, name_index
from bifrost.graph_builders.jurisdictions.adgm.passages_json import document_id_of


STATUTE = "FSMR"  # unnamed `section N` / `Part N` in a rulebook or guidance cites the FSMR


@dataclass(frozen=True)
class DocumentIndex:
    """The passages of one document by normalized id and by cited number."""

    document_id: str
    full: Mapping[str, str]
    alias: Mapping[str, str]
    children: Mapping[str, tuple[AdgmCitation, ...]]
    has_parts: bool = False

    def find(self, key: str) -> str | None:
        """UUID of the passage with this normalized id, else of the one cited by this number."""
        return self.full.get(key) or self.alias.get(key)

    def siblings(self, cit: AdgmCitation) -> tuple[AdgmCitation, ...]:
        par = cit.parent()
        return self.children.get(str(par) if par is not None else "", ())


def _alias_keys(cit: AdgmCitation) -> list[str]:
    keys = [str(cit.rule_key())]
    segs = cit.segments
    if len(segs) > 1 and segs[0].startswith("APP") and segs[1].startswith("A") and segs[1][1:].isdigit():
        keys.append(".".join(segs[1:]))
    # `paragraph 87 of Schedule 1` skips the schedule's Parts
    if len(segs) > 2 and segs[0].startswith("Schedule "):
        keys.append(f"{segs[0]}.{AdgmCitation(segs[1:]).rule_key()}")
    return [k for k in keys if k != str(cit)]


def _document_index(document_id: str, items: Sequence[tuple[AdgmCitation, str]]) -> DocumentIndex:
    parent_keys = {str(a) for c, _ in items for a in c.ancestors()}
    full: dict[str, str] = {}
    for cit, uuid in items:  # a repeated id: the one that heads children wins, else the first
        key = str(cit)
        if key not in full or (key in parent_keys and _first_is_leaf(full[key], key, items)):
            full[key] = uuid
    alias: dict[str, str] = {}
    for cit, uuid in items:
        for key in _alias_keys(cit):
            if key not in full:
                alias.setdefault(key, uuid)
    children: dict[str, list[AdgmCitation]] = {}
    for cit, _ in items:
        par = cit.parent()
        sibs = children.setdefault(str(par) if par is not None else "", [])
        if cit not in sibs:
            sibs.append(cit)
    has_parts = any(c.segments[0].startswith("Part ") for c, _ in items)
    return DocumentIndex(document_id, full, alias, {k: tuple(v) for k, v in children.items()}, has_parts)


def _first_is_leaf(uuid: str, key: str, items: Sequence[tuple[AdgmCitation, str]]) -> bool:
    """True if the passage first stored under `key` is not followed by a descendant (a list item)."""
    for i, (cit, u) in enumerate(items):
        if u == uuid:
            nxt = items[i + 1][0] if i + 1 < len(items) else None
            return nxt is None or not cit.is_ancestor_of(nxt)
    return True


@dataclass(frozen=True)
class AdgmIndex:
    """Every ADGM passage by document and id, each source passage's place, and citing names."""

    documents: Mapping[str, DocumentIndex]
    sources: Mapping[str, tuple[str, AdgmCitation | None]]
    names: Mapping[str, str] = field(default_factory=dict)
    statute: str | None = None

    @classmethod
    def from_provisions(
        cls, provisions: Iterable[Provision], documents: Mapping[str, AdgmDocument] = ADGM_DOCUMENTS
    ) -> AdgmIndex:
        """Index provisions parsed by `adgm_json` (DocumentID from `Provision.document`, PassageID =
        heading)."""
        per_doc: dict[str, list[tuple[AdgmCitation, str]]] = {}
        sources: dict[str, tuple[str, AdgmCitation | None]] = {}
        for p in provisions:
            doc = document_id_of(p) or ""
            try:
                cit: AdgmCitation | None = AdgmCitation.parse(p.heading)
            except CitationError:
                cit = None
            sources[p.id] = (doc, cit)
            if cit is not None:
                per_doc.setdefault(doc, []).append((cit, p.id))
        docs = {d: _document_index(d, items) for d, items in per_doc.items()}
        names = name_index(documents)
        return cls(docs, sources, names, names.get(STATUTE.casefold()))

    def __contains__(self, uuid: object) -> bool:
        return uuid in self.sources

    def document(self, document_id: str) -> DocumentIndex | None:
        return self.documents.get(document_id)

    def document_of_name(self, name: str) -> str | None:
        """DocumentID cited by a name (`GEN`, `the Fund Rules`, `FSMR`), if the corpus holds it."""
        key = " ".join(name.split()).casefold()
        key = key[4:] if key.startswith("the ") else key
        doc = self.names.get(key)
        return doc if doc in self.documents else None
