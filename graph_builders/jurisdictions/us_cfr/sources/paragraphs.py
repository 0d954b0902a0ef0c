"""Split one CFR section's lines into provisions: paragraphs at every level, definitions, notes.

Shared by every source format (eCFR JSON and XML, HTML, PDF): a scraper hands over the
section's lines in order, with page numbers where known, and gets back the section node and
its descendants in document order, plus a list of things that looked odd.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.jurisdictions.us_cfr.sources.labels import (
    DEFINITION,
    Frame,
    place_label,
    push_frame,
)
from bifrost.graph_builders.jurisdictions.us_cfr.sources.lines import (
    FIRST_CHILD,
    Line,
    Unit,
    definition_term,
    is_labelled,
    line_units,
)

__all__ = ["Line", "split_section"]

_SOURCE = re.compile(r"^\[.*\b(?:FR|CFR|Stat\.|U\.S\.C\.)\b.*\]$")
_NOTE = re.compile(
    r"^(?P<prefix>(?:Editorial |Effective Date |Effective date )?"
    r"(?:Note|NOTE|Notes|NOTES|Exception|Exceptions|Exemption|Exemptions)(?: \d+)?(?: (?:to|for) "
    r"[^:]{1,120})?:)\s*(?P<rest>.*)$",
    re.S,
)
_APPENDIX = re.compile(
    r"^(?:\(Non-mandatory\) )?Appendix(?: (?P<letter>[A-Z0-9]{1,3}))? to "
    r"§\s*(?P<sec>[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9]))(?P<rest>.*)$",
    re.S,
)
_APPENDIX_GROUP = re.compile(r"^Appendices to §")
_NOTE_TARGET = re.compile(r"(?:paragraphs? |to |§\s?\d+\.\d+\s?)((?:\(\s?\w{1,7}\s?\))+)")
_DEF_CONTEXT = re.compile(r"\bdefinitions?\b", re.I)
_DEF_INLINE_CHILD = re.compile(r"(means|include[s]?|:|—)\s*—?\s*(?=" + FIRST_CHILD + r"\s)")


@dataclass
class _Node:
    id: str
    parent: int | None
    kind: ProvisionKind
    level: int
    heading: str = ""
    texts: list[str] = field(default_factory=list)
    pages: set[int] = field(default_factory=set)
    term: str | None = None
    reserved: bool = False
    heading_if_parent: str | None = None
    children: int = 0
    notes: int = 0
    anchor: str | None = None  # paragraph id whose eCFR fragment the node is reached by


@dataclass
class _State:
    section_id: str
    nodes: list[_Node]
    oddities: list[str]
    stack: list[Frame] = field(default_factory=list)
    last: int = 0  # last provision (not note) created: notes attach here
    last_any: int = 0  # last node of any kind: continuation lines go here
    in_appendix: bool = False
    source_notes: list[str] = field(default_factory=list)
    line: str = ""  # the line being read, quoted in oddities

    def odd(self, reason: str) -> None:
        where = self.line if len(self.line) <= 60 else self.line[:57] + "..."
        self.oddities.append(f"{self.section_id}: {reason} (line {where!r})")

    def add(self, node: _Node, page: int | None) -> int:
        if node.parent is not None:
            self.nodes[node.parent].children += 1
        if page is not None:
            node.pages.add(page)
        if any(n.id == node.id for n in self.nodes):
            self.odd(f"duplicate provision id {node.id}")
            node.id = f"{node.id}[{sum(1 for n in self.nodes if n.id.startswith(node.id)) + 1}]"
        self.nodes.append(node)
        return len(self.nodes) - 1

    def container(self) -> int:
        """Where a definition goes: the deepest open paragraph outside any definition."""
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i].scheme == DEFINITION:
                return self.nodes[self.stack[i].node].parent or 0
        return self.stack[-1].node if self.stack else 0


def _append_text(state: _State, idx: int, text: str, page: int | None) -> None:
    node = state.nodes[idx]
    node.texts.append(text)
    if page is not None:
        node.pages.add(page)


def _in_definitions(state: _State, section_heading: str) -> bool:
    last = state.nodes[state.last]
    if last.kind is ProvisionKind.DEFINITION or any(f.scheme == DEFINITION for f in state.stack):
        return True
    box = state.nodes[state.container()]
    words = " ".join([box.heading, box.heading_if_parent or "", *box.texts[:1]])
    if _DEF_CONTEXT.search(words):
        return True
    return box.kind is ProvisionKind.SECTION and bool(_DEF_CONTEXT.search(section_heading))


def _add_definition(state: _State, term: str, text: str, page: int | None) -> None:
    parent = state.container()
    pid = state.nodes[parent].id
    node = _Node(f"{pid}[{term}]", parent, ProvisionKind.DEFINITION, state.nodes[parent].level + 1, term=term)
    node.anchor = state.nodes[parent].anchor
    node.texts.append(text)
    idx = state.add(node, page)
    depth = next((i for i, f in enumerate(state.stack) if f.scheme == DEFINITION), None)
    keep = state.stack[:depth] if depth is not None else state.stack
    state.stack = [*keep, Frame(DEFINITION, term, idx)]
    state.last = state.last_any = idx
    m = _DEF_INLINE_CHILD.search(text)
    if m and re.search(FIRST_CHILD + r"\s", text[m.end() :][:8]):
        node.texts[-1] = text[: m.end()].rstrip(" —")
        for unit in line_units(Line(text[m.end() :], page)):
            _add_unit(state, unit, None)


def _add_unit(state: _State, unit: Unit, nxt: tuple[str, bool] | None) -> None:
    placement = place_label(state.stack, unit.label, unit.italic, nxt)
    if placement is None:
        state.odd(f"label ({unit.label}) fits no open paragraph; kept as text")
        _append_text(state, state.last_any, f"({unit.label}) {unit.heading} {unit.text}".strip(), unit.page)
        return
    if placement.odd:
        state.odd(placement.odd)
    parent = state.stack[placement.pos - 1].node if placement.pos > 0 else 0
    pnode = state.nodes[parent]
    pid = f"{pnode.id}({unit.label})" + (f"-({unit.last_label})" if unit.last_label else "")
    node = _Node(pid, parent, ProvisionKind.PARAGRAPH, pnode.level + 1, heading=unit.heading)
    node.anchor = pid if pnode.kind is not ProvisionKind.DEFINITION else pnode.anchor
    node.heading_if_parent = unit.heading_if_parent
    if re.fullmatch(r"\[Reserved\]\.?", unit.text.strip()):
        node.reserved = True
    elif unit.text:
        node.texts.append(unit.text)
    idx = state.add(node, unit.page)
    state.stack = push_frame(state.stack, placement, unit.last_label or unit.label, idx)
    state.last = state.last_any = idx


def _add_note(state: _State, prefix: str, rest: str, page: int | None) -> None:
    target = state.last
    m = _NOTE_TARGET.search(prefix)
    if m:
        wanted = state.section_id + re.sub(r"\s", "", m.group(1))
        target = next((i for i, n in enumerate(state.nodes) if n.id == wanted), target)
    elif re.search(r"\bto §", prefix):
        target = 0
    owner = state.nodes[target]
    owner.notes += 1
    suffix = "[Note]" if owner.notes == 1 else f"[Note {owner.notes}]"
    node = _Node(
        owner.id + suffix,
        target,
        ProvisionKind.NOTE,
        owner.level + 1,
        heading=re.sub(r"\(\s(\w+)\s\)", r"(\1)", prefix),
    )
    node.anchor = owner.anchor
    node.texts.append(rest.strip())
    state.last_any = state.add(node, page)


def _add_appendix(state: _State, m: re.Match[str], page: int | None) -> None:
    letter = m.group("letter")
    rest = m.group("rest").strip()
    if m.group("sec") != state.section_id:
        state.odd(f"appendix names § {m.group('sec')}")
    aid = f"{state.section_id} Appendix {letter}" if letter else f"{state.section_id} Appendix"
    heading = f"Appendix {letter} to § {state.section_id}" if letter else f"Appendix to § {state.section_id}"
    node = _Node(aid, 0, ProvisionKind.APPENDIX, state.nodes[0].level + 1, heading=heading)
    if rest.strip() == "[Reserved]":
        node.reserved = True
    elif rest:
        node.texts.append(rest.lstrip("—- "))
    state.last = state.last_any = state.add(node, page)
    state.stack = []
    state.in_appendix = True


def _next_label(lines: Sequence[Line], start: int) -> tuple[str, bool] | None:
    for line in lines[start:]:
        if is_labelled(line.text):
            u = line_units(line)[0]
            return u.label, u.italic
    return None


def _consume(state: _State, lines: Sequence[Line], section_heading: str) -> None:
    """Walk the lines once, growing the tree in ``state``."""
    for i, line in enumerate(lines):
        text = line.text.strip()
        if not text:
            continue
        state.line = text
        if _SOURCE.match(text):
            state.source_notes.append(text)
            state.last = state.last_any = 0
            state.in_appendix = False
            continue
        if m := _APPENDIX.match(text):
            _add_appendix(state, m, line.page)
            continue
        if _APPENDIX_GROUP.match(text):
            state.last = state.last_any = 0
            state.stack, state.in_appendix = [], True
            continue
        if m := _NOTE.match(text):
            _add_note(state, m.group("prefix"), m.group("rest"), line.page)
            continue
        if state.in_appendix:
            _append_text(state, state.last_any, text, line.page)
            continue
        if is_labelled(text):
            units = line_units(line)
            for j, unit in enumerate(units):
                nxt = (
                    (units[j + 1].label, units[j + 1].italic)
                    if j + 1 < len(units)
                    else _next_label(lines, i + 1)
                )
                _add_unit(state, unit, nxt)
                last = state.nodes[state.last]
                if (
                    last.heading
                    and _DEF_CONTEXT.match(last.heading)
                    and unit.text
                    and definition_term(unit.text, True)
                ):
                    last.texts.pop()  # '(b) Definitions. Anchorage means ...': first definition inline
                    _add_definition(state, definition_term(unit.text, True) or "", unit.text, unit.page)
            continue
        term = definition_term(text, _in_definitions(state, section_heading))
        if term:
            _add_definition(state, term, text, line.page)
        else:
            _append_text(state, state.last_any, text, line.page)


def _finish(
    state: _State,
    section_heading: str,
    corpus: str,
    order_start: int,
    url_base: str | None,
    document: str | None,
) -> list[Provision]:
    section_url = f"{url_base}/section-{state.section_id}" if url_base else None
    out: list[Provision] = []
    all_pages = set().union(*(n.pages for n in state.nodes))
    for i, n in enumerate(state.nodes):
        heading, texts = n.heading, n.texts
        if n.heading_if_parent and n.children and texts == [n.heading_if_parent]:
            heading, texts = n.heading_if_parent, []
        url = section_url
        if section_url and n.anchor:
            url = f"{section_url}#p-{n.anchor}"
        is_section = n.kind is ProvisionKind.SECTION
        out.append(
            Provision(
                corpus=corpus,
                id=n.id,
                parent_id=state.nodes[n.parent].id if n.parent is not None else None,
                kind=n.kind,
                heading=heading if not is_section else section_heading,
                text="\n".join(t for t in texts if t),
                level=n.level,
                order=order_start + i,
                url=url,
                pages=tuple(sorted(all_pages if is_section else n.pages)),
                term=n.term,
                source_note=" ".join(state.source_notes) or None if is_section else None,
                reserved=n.reserved
                or (is_section and len(state.nodes) == 1 and not texts and "[Reserved]" in section_heading),
                document=document,
            )
        )
    return out


def split_section(
    corpus: str,
    section_id: str,
    heading: str,
    lines: Sequence[Line],
    *,
    parent_id: str,
    order_start: int,
    url_base: str | None = "https://www.ecfr.gov/current/title-29",
    document: str | None = None,
) -> tuple[list[Provision], list[str]]:
    """The section provision followed by its descendants in document order, and oddities found.

    Paragraph ids follow the CFR levels (a)(1)(i)(A)(1)(a); definitions are ``<parent>[Term]``,
    notes ``<provision>[Note]``; source lines like ``[61 FR 46104, ...]`` become ``source_note``.
    """
    section = _Node(section_id, None, ProvisionKind.SECTION, 2)
    state = _State(section_id, [section], [])
    _consume(state, lines, heading)
    provisions = _finish(state, heading, corpus, order_start, url_base, document)
    provisions[0] = provisions[0].model_copy(update={"parent_id": parent_id})
    return provisions, state.oddities
