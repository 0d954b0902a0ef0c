"""Split one CFR section's lines into provisions: paragraphs at every level, definitions, notes.

Shared by every source format (eCFR JSON and XML, HTML, PDF): a scraper hands over the
section's lines in order, with page numbers where known, and gets back the section node and
its descendants in document order, plus a list of things that looked odd.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from bifrost.core.types import Provision, ProvisionKind

# --------------------------------------------------------------------------------------------
# Labels: the six CFR designation schemes and where a label may go in the open-paragraph stack.
# Schemes: 1 (a), 2 (1), 3 (i), 4 (A), 5 italic (1), 6 italic (a); 0 marks a definition, whose
# list items start a new sequence.
# --------------------------------------------------------------------------------------------

_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_DEFINITION = 0


@dataclass(frozen=True)
class Line:
    """One line (paragraph) of a section as a source gives it.

    ``italic_label`` says the leading label was set in italics (CFR levels 5-6, e.g. eCFR XML
    ``(<I>1</I>)``); ``italic_heading`` is the italic phrase right after the label(s), when the
    source marks it, so the heading need not be guessed.
    """

    text: str
    page: int | None = None
    italic_label: bool = False
    italic_heading: str | None = None


@dataclass(frozen=True)
class _Frame:
    scheme: int
    label: str
    node: int


@dataclass(frozen=True)
class _Placement:
    pos: int
    scheme: int
    odd: str | None = None
    gap: int = 0


def _to_roman(n: int) -> str:
    out = []
    for value, sym in ((100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)


def _roman_value(label: str) -> int | None:
    if not label or any(c not in _ROMAN for c in label):
        return None
    total = 0
    for i, c in enumerate(label):
        nxt = _ROMAN[label[i + 1]] if i + 1 < len(label) else 0
        total += -_ROMAN[c] if _ROMAN[c] < nxt else _ROMAN[c]
    return total if total > 0 and _to_roman(total) == label else None


def _letter_value(label: str, lower: bool) -> int | None:
    """a..z, then aa, bb, ... as the CFR continues past z."""
    if not label or len(set(label)) != 1 or not label.isalpha() or not label.isascii() or label.islower() != lower:
        return None
    return (len(label) - 1) * 26 + ord(label[0].lower()) - ord("a")


def label_ordinal(scheme: int, label: str) -> int | None:
    """0-based position of ``label`` in ``scheme``'s sequence, or None if it does not belong."""
    if scheme in (2, 5):
        return int(label) - 1 if label.isdigit() and int(label) > 0 else None
    if scheme == 3:
        v = _roman_value(label)
        return v - 1 if v else None
    if scheme in (1, 6):
        return _letter_value(label, lower=True)
    if scheme == 4:
        return _letter_value(label, lower=False)
    return None


def _schemes(label: str, italic: bool) -> tuple[int, ...]:
    """Schemes a label may belong to; an italic label is level 5 or 6 only."""
    if label.isdigit():
        return (5,) if italic else (2, 5)
    if italic:
        return (6,) if label_ordinal(6, label) is not None else ()
    return tuple(s for s in (1, 3, 4, 6) if label_ordinal(s, label) is not None)


def _options(stack: Sequence[_Frame], label: str, italic: bool) -> list[_Placement]:
    """Every placement of ``label``: sibling of an open frame, or child of the top frame."""
    schemes = _schemes(label, italic)
    found: list[_Placement] = []
    for pos, frame in enumerate(stack):
        if frame.scheme in schemes:
            gap = label_ordinal(frame.scheme, label) - label_ordinal(frame.scheme, frame.label)  # type: ignore[operator]
            if gap == 1:
                found.append(_Placement(pos, frame.scheme))
            elif 1 < gap <= _MAX_GAP + 1:
                found.append(_Placement(pos, frame.scheme, f"({label}) follows ({frame.label}), skipping {gap - 1}", gap))
    top = stack[-1].scheme if stack else None
    for s in schemes:
        first = label_ordinal(s, label) == 0
        want = {None: 1, _DEFINITION: s}.get(top, (top or 0) + 1)
        if first and s == want:
            found.append(_Placement(len(stack), s))
        elif top not in (None, _DEFINITION) and s > top and (italic or s == want):  # type: ignore[operator]
            why = "does not start its level" if s == want else f"is italic but its parent ({stack[-1].label}) is level {top}"
            found.append(_Placement(len(stack), s, f"({label}) {why}", 500 + s))
        elif top in (None, _DEFINITION):
            found.append(_Placement(len(stack), s, f"({label}) does not start its level", 600 + s))
    return found


def _place(stack: Sequence[_Frame], label: str, italic: bool, nxt: tuple[str, bool] | None) -> _Placement | None:
    """Choose where ``label`` goes; the next label settles letter/roman and (1)/italic (1) ties.

    Exact placements win; among several, those after which the next label also fits exactly;
    then a sibling before a new child, and the deepest sibling. None: the label fits nowhere.
    """
    options = _options(stack, label, italic)
    exact = [o for o in options if o.odd is None]
    if not exact:
        return min(options, key=lambda o: (o.gap, -o.pos), default=None)
    if len(exact) > 1 and nxt is not None:
        after = [o for o in exact if any(q.odd is None for q in _options(_push(stack, o, label, -1), *nxt))]
        exact = after or exact
    if len(exact) > 1 and stack and stack[-1].scheme == _DEFINITION:
        return min(exact, key=lambda o: o.scheme)
    siblings = [o for o in exact if o.pos < len(stack)]
    return max(siblings, key=lambda o: o.pos) if siblings else exact[0]


def _push(stack: Sequence[_Frame], p: _Placement, label: str, node: int) -> list[_Frame]:
    return [*stack[: p.pos], _Frame(p.scheme, label, node)]


# --------------------------------------------------------------------------------------------
# Line shapes: labelled units, notes, source notes, appendices, definitions.
# --------------------------------------------------------------------------------------------

_LABEL = re.compile(r"\((\s?)([A-Za-z]{1,7}|\d{1,3})(\s?)\)\s*")
_RANGE = re.compile(r"^(?:-|–|—|through)\s*\((\w{1,4})\)\s*")
_FIRST_CHILD = r"\(\s?(?:a|1|i|A)\s?\)"
_INLINE_CHILD = re.compile(r"(\.|\s?[—-]+|:|(?<=[a-z]) (?=" + _FIRST_CHILD + r" [A-Z]))\s*(?=" + _FIRST_CHILD + r"[\s(])")
_SOURCE = re.compile(r"^\[.*\b(?:FR|CFR|Stat\.|U\.S\.C\.)\b.*\]$")
_NOTE = re.compile(
    r"^(?P<prefix>(?:Editorial |Effective Date |Effective date )?"
    r"(?:Note|NOTE|Notes|NOTES|Exception|Exceptions|Exemption|Exemptions)(?: \d+)?(?: (?:to|for) [^:]{1,120})?:)\s*(?P<rest>.*)$",
    re.S,
)
_APPENDIX = re.compile(r"^(?:\(Non-mandatory\) )?Appendix(?: (?P<letter>[A-Z0-9]{1,3}))? to §\s*(?P<sec>\d+\.\d+)(?P<rest>.*)$", re.S)
_APPENDIX_GROUP = re.compile(r"^Appendices to §")
_NOTE_TARGET = re.compile(r"(?:paragraphs? |to |§\s?\d+\.\d+\s?)((?:\(\s?\w{1,7}\s?\))+)")
_VERBS = re.compile(
    r"\b(?:shall|must|may|means|mean|is|are|was|were|will|should|does|do|has|have|can|cannot|apply|applies)\b", re.I
)
_PERIOD = re.compile(r"\.\s+(?=[A-Z(“\"])")
_ABBREVIATIONS = frozenset("No Nos Inc etc Co St Mr Dr vs al Jr Sr Corp Ft ft in approx Figs Fig".split())
_STRONG_VERBS = re.compile(r"\b(?:shall|must)\b", re.I)
_NO_VERBS = re.compile(r"(?!)")
_MAX_GAP = 3  # a sibling may skip this many removed labels before the placement is refused
_DEF_MEANS = re.compile(
    r"^(?P<term>[“\"]?[A-Z0-9][^.;:]{0,120}?)[”\"]?,?\s+(?:means|mean|is defined as|refers to|shall mean)\b"
)
_DEF_PUNCT = re.compile(r"^(?P<term>[A-Z][\w'’/,\- ]{0,70}?(?: \([^)]{1,60}\))?)(?:\.|:)\s+(?P<rest>\S.*)$", re.S)
_DEF_DASH = re.compile(r"^(?P<term>[A-Z][\w'’/,\- ]{0,60}?)\s?—\s*(?P<rest>" + _FIRST_CHILD + r"\s.*)$", re.S)
_QUALIFIER = re.compile(r"^\(((?:As applied|As used|Of|For|In)\b[^)]{0,80})\)")
_DEF_STOP = re.compile(r"^(?:The|This|These|That|A|An|It|Its|Such|See|For|In|If|When|Where|Each|All|Any|No|Note|Table|Figure)\b")
_DEF_CONTEXT = re.compile(r"\bdefinitions?\b", re.I)
_DEF_INLINE_CHILD = re.compile(r"(means|include[s]?|:|—)\s*—?\s*(?=" + _FIRST_CHILD + r"\s)")


@dataclass(frozen=True)
class _Unit:
    """One labelled paragraph as found in a line (a line may hold several)."""

    label: str
    italic: bool
    heading: str
    text: str
    page: int | None
    heading_if_parent: str | None = None  # whole text looks like a heading: one if children follow
    last_label: str | None = None  # '(17)-(22) [Reserved]': a range of labels in one line


def _sentence_end(s: str) -> tuple[int, int] | None:
    """(index of the period, start of the next sentence) of the first sentence, skipping abbreviations."""
    for m in _PERIOD.finditer(s):
        word = s[: m.start()].rsplit(" ", 1)[-1].lstrip("(")
        if word in _ABBREVIATIONS or (len(word) <= 2 and word[-1:].isupper()) or "." in word:
            continue
        return m.start(), m.end()
    return None


def _word_count(s: str) -> int:
    return len(s.split())


def _heading_like(s: str, max_words: int, verbs: re.Pattern[str] = _VERBS) -> bool:
    s = s.strip()
    return (
        bool(s)
        and (s[0].isupper() or s[0].isdigit() or s[0] in "“\"")
        and _word_count(s) <= max_words
        and not verbs.search(s)
        and _sentence_end(s.rstrip(". ")) is None
        and not s.startswith("[")
    )


def _split_heading(rest: str, hint: str | None) -> tuple[str, str, str | None, str | None]:
    """(heading, body, inline child text, heading-if-parent) of the text after a label."""
    if hint and rest.startswith(hint.strip()):
        head, body = hint.strip(), rest[len(hint.strip()) :].strip()
        m = re.match(_FIRST_CHILD + r"\s", body)
        return (head.rstrip(" —"), "", body, None) if m else (head.rstrip(" —"), body, None, None)
    m = _INLINE_CHILD.search(rest)
    if m:
        head = rest[: m.start()].strip() + (m.group(1) if m.group(1) == "." else "")
        bare = m.group(1) == " "  # 'Disconnecting means (A) A ...': a heading that lost its period
        if m.group(1) == ":" and head:  # 'as follows: (A) ...' is a lead-in sentence, not a heading
            if _sentence_end(head) is None and _word_count(head) <= 40:
                return "", head + ":", rest[m.end() :], None
            return "", rest, None, None
        if not head or _heading_like(head, 4 if bare else 25, _STRONG_VERBS if bare else _NO_VERBS):
            return head, "", rest[m.end() :], None
    m = _sentence_end(rest)
    if m and _heading_like(rest[: m[0] + 1], 12):
        return rest[: m[0] + 1].strip(), rest[m[1] :].strip(), None, None
    if not m and rest.endswith(".") and _heading_like(rest, 12):
        return "", rest, None, rest
    return "", rest, None, None


def _units(line: Line) -> list[_Unit]:
    """The labelled paragraphs in a line: stacked labels '(c)(1)' and inline children split."""
    units: list[_Unit] = []
    text, italic_first, hint = line.text.strip(), line.italic_label, line.italic_heading
    while True:
        labels: list[tuple[str, bool]] = []
        pos = 0
        while m := _LABEL.match(text, pos):
            labels.append((m.group(2), bool(m.group(1) or m.group(3)) or (italic_first and not labels and not units)))
            pos = m.end()
        rest = text[pos:].strip()
        span = _RANGE.match(rest)
        if span:
            rest = rest[span.end() :].strip()
        for label, italic in labels[:-1]:
            units.append(_Unit(label, italic, "", "", line.page))
        heading, body, inline, maybe = _split_heading(rest, hint)
        last = span.group(1) if span else None
        units.append(_Unit(labels[-1][0], labels[-1][1], heading, body, line.page, maybe, last))
        if inline is None:
            return units
        text, hint = inline, None


def _is_labelled(text: str) -> bool:
    m = _LABEL.match(text.strip())
    return bool(m) and _schemes(m.group(2), bool(m.group(1) or m.group(3))) != ()


def _definition_term(text: str, in_context: bool) -> str | None:
    """The defined term if an unlabelled line reads as a definition ('Term means ...', 'Term. ...')."""
    if not in_context:
        return None
    m = _DEF_MEANS.match(text)
    if m and _word_count(m.group("term")) <= 10 and not _DEF_STOP.match(m.group("term")):
        return m.group("term").strip("“”\" ,")
    m = _DEF_PUNCT.match(text) or _DEF_DASH.match(text)
    if m and _word_count(m.group("term")) <= 6 and not _DEF_STOP.match(m.group("term")):
        q = _QUALIFIER.match(m.group("rest"))
        return m.group("term").strip() + (f" ({q.group(1).rstrip('.')})" if q else "")
    return None


# --------------------------------------------------------------------------------------------
# Building the tree.
# --------------------------------------------------------------------------------------------


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
    stack: list[_Frame] = field(default_factory=list)
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
            if self.stack[i].scheme == _DEFINITION:
                return self.nodes[self.stack[i].node].parent or 0
        return self.stack[-1].node if self.stack else 0


def _append_text(state: _State, idx: int, text: str, page: int | None) -> None:
    node = state.nodes[idx]
    node.texts.append(text)
    if page is not None:
        node.pages.add(page)


def _in_definitions(state: _State, section_heading: str) -> bool:
    last = state.nodes[state.last]
    if last.kind is ProvisionKind.DEFINITION or any(f.scheme == _DEFINITION for f in state.stack):
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
    depth = next((i for i, f in enumerate(state.stack) if f.scheme == _DEFINITION), None)
    keep = state.stack[:depth] if depth is not None else state.stack
    state.stack = [*keep, _Frame(_DEFINITION, term, idx)]
    state.last = state.last_any = idx
    m = _DEF_INLINE_CHILD.search(text)
    if m and re.search(_FIRST_CHILD + r"\s", text[m.end() :][:8]):
        node.texts[-1] = text[: m.end()].rstrip(" —")
        for unit in _units(Line(text[m.end() :], page)):
            _add_unit(state, unit, None)


def _add_unit(state: _State, unit: _Unit, nxt: tuple[str, bool] | None) -> None:
    placement = _place(state.stack, unit.label, unit.italic, nxt)
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
    state.stack = _push(state.stack, placement, unit.last_label or unit.label, idx)
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
    node = _Node(owner.id + suffix, target, ProvisionKind.NOTE, owner.level + 1, heading=re.sub(r"\(\s(\w+)\s\)", r"(\1)", prefix))
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
        if _is_labelled(line.text):
            u = _units(line)[0]
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
        if _is_labelled(text):
            units = _units(line)
            for j, unit in enumerate(units):
                nxt = (units[j + 1].label, units[j + 1].italic) if j + 1 < len(units) else _next_label(lines, i + 1)
                _add_unit(state, unit, nxt)
                last = state.nodes[state.last]
                if last.heading and _DEF_CONTEXT.match(last.heading) and unit.text and _definition_term(unit.text, True):
                    last.texts.pop()  # '(b) Definitions. Anchorage means ...': first definition inline
                    _add_definition(state, _definition_term(unit.text, True) or "", unit.text, unit.page)
            continue
        term = _definition_term(text, _in_definitions(state, section_heading))
        if term:
            _add_definition(state, term, text, line.page)
        else:
            _append_text(state, state.last_any, text, line.page)


def _finish(state: _State, section_heading: str, corpus: str, order_start: int, url_base: str | None, document: str | None) -> list[Provision]:
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
                reserved=n.reserved or (is_section and len(state.nodes) == 1 and not texts and "[Reserved]" in section_heading),
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
