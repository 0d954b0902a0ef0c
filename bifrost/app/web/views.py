"""Read helpers for the web pages: small views over the facade and its graph store.

They use only public methods of `Bifrost` and `GraphStore`; anything the facade lacks
(entities mentioning a provision, the nearest heading) is computed here.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from urllib.parse import quote

from pydantic import BaseModel

from bifrost.core.errors import NotFoundError
from bifrost.app.facade import Bifrost
from bifrost.core.answer_types import Answer, Citation, RetrievedItem

EXAMPLES: dict[str, tuple[str, ...]] = {
    "osha-1926": (
        "How to protect excavation work from rainstorm hazard?",
        "Can a warning line plus a personal fall arrest system be used for all leading-edge work?",
        "What are the requirements for guardrail systems on scaffolds?",
        "When must a competent person inspect a trench?",
    ),
    "mini": ("What must an employee constructing a leading edge be protected by?",),
}


def provision_url(corpus: str, provision_id: str) -> str:
    """Path of a provision page; ids with parentheses, brackets and spaces are percent-encoded."""
    return f"/provision/{quote(corpus, safe='')}/{quote(provision_id, safe='')}"


def entity_url(corpus: str, name: str) -> str:
    """Path of an entity page."""
    return f"/entity/{quote(corpus, safe='')}/{quote(name, safe='')}"


class Segment(BaseModel):
    """A run of provision text, marked when an answer quotes it."""

    text: str
    marked: bool = False


class SourceView(BaseModel):
    """A cited provision with its anchor, context heading, why retrieval found it and its text
    cut into segments around the quoted spans."""

    anchor: str
    citation: Citation
    section_heading: str = ""
    item: RetrievedItem | None = None
    segments: list[Segment] = []


def highlight(text: str, spans: Sequence[tuple[int, int]]) -> list[Segment]:
    """``text`` as plain and marked segments; overlapping or touching spans are merged."""
    merged: list[list[int]] = []
    for start, end in sorted((max(0, s), min(len(text), e)) for s, e in spans):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, last = [], 0
    for start, end in merged:
        if start > last:
            out.append(Segment(text=text[last:start]))
        out.append(Segment(text=text[start:end], marked=True))
        last = end
    if last < len(text):
        out.append(Segment(text=text[last:]))
    return out


class EntityMentions:
    """Entities of the Entity Network by provision id, built once per corpus (MENTIONED_IN inverted)."""

    def __init__(self, bifrost: Bifrost) -> None:
        self.bifrost = bifrost
        self._by_corpus: dict[str, dict[str, list[str]]] = {}
        self._lock = threading.Lock()

    def _load(self, corpus: str) -> dict[str, list[str]]:
        try:
            index = self.bifrost.retriever(corpus).index
        except NotFoundError:
            return {}
        inverted: dict[str, list[str]] = defaultdict(list)
        for name, ids in zip(index.entity_names, index.entity_sections):
            for pid in ids:
                inverted[pid].append(name)
        return {pid: sorted(names) for pid, names in inverted.items()}

    def of(self, corpus: str, provision_id: str) -> list[str]:
        """Names of the entities mentioned in a provision, sorted."""
        with self._lock:
            if corpus not in self._by_corpus:
                self._by_corpus[corpus] = self._load(corpus)
        return self._by_corpus[corpus].get(provision_id, [])


def section_heading(bifrost: Bifrost, corpus: str, provision_id: str, max_up: int = 6) -> str:
    """The heading of the provision, else of its nearest ancestor that has one (e.g. the section)."""
    pid: str | None = provision_id
    for _ in range(max_up):
        p = bifrost.provision(corpus, pid) if pid is not None else None
        if p is None:
            return ""
        if p.heading:
            return p.heading if p.id == provision_id else f"{p.id} {p.heading}"
        pid = bifrost.parent_id(corpus, p.id)
    return ""


def sources_of(bifrost: Bifrost, answer: Answer) -> list[SourceView]:
    """The cited provisions in answer order, each with its anchor, retrieval reason and quoted spans."""
    items = {(it.corpus, it.id): it for it in answer.retrieved}
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for st in answer.statements:
        for q in st.quotes:
            spans[q.provision_id].append((q.start, q.end))
    return [
        SourceView(
            anchor=f"src-{i}",
            citation=c,
            item=items.get((c.corpus, c.id)),
            section_heading=section_heading(bifrost, c.corpus, c.id),
            segments=highlight(c.text, spans.get(c.id, [])),
        )
        for i, c in enumerate(answer.citations, start=1)
    ]


def via_labels(item: RetrievedItem | None) -> list[str]:
    """Readable names of the ways an item was reached."""
    names = {
        "entity": "entity match",
        "triple": "triple match",
        "refers_to": "cross-reference",
        "parent": "parent",
        "child": "child",
        "sibling": "sibling",
        "lexical": "keyword",
        "dense": "embedding",
        "named": "named in the question",
        "precedent": "cited by a similar answered question",
    }
    return [names.get(v.value, v.value) for v in item.via] if item else []
