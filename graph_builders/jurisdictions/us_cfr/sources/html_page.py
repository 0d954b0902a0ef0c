"""Read a regulation web page (osha.gov standard page, eCFR rendered HTML) into provisions.

The page is flattened into text runs (one per block element); a run that reads like a
section heading starts a section, the runs after it are that section's paragraphs.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import Comment, Declaration, Doctype, ProcessingInstruction

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ParsedDocument, Provision, SourceDocument
from bifrost.graph_builders.jurisdictions.us_cfr.sources.paragraphs import Line, split_section

_DROP = frozenset(
    "script style noscript template nav header footer aside form button select iframe svg head title".split()
)
_BLOCK = frozenset(
    "p div li ul ol dl dt dd table tr td th tbody thead h1 h2 h3 h4 h5 h6 section article main blockquote "
    "pre hr body html figure figcaption".split()
)
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_ITALIC = frozenset(("i", "em"))
_LEADING_LABELS = re.compile(r"(?:\(\s?[A-Za-z0-9]{1,4}\s?\)\s*)+")
_SECTION = re.compile(
    r"^(?:(?P<sign>§+)\s*|Section\s+)?(?P<id>[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9])[a-z]?(?:\s*[-–]\s*[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9])[a-z]?)?)(?![\d(])"
    r"\s*(?:[-–—:]\s*)?(?P<heading>[A-Z\[“\"].*)?$"
)
_SUBPART = re.compile(
    r"^(?:(?P<part>[1-9][0-9]{0,3})\s+)?Subpart\s+(?P<letter>[A-Z]{1,2})\b\s*(?:[-–—:.]\s*(?P<heading>.*))?$"
)
_ANCHOR = re.compile(r"^(?:p-)?(?P<id>[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9])[a-z]?(?:\([^)]+\))+)$")
_MARKER = re.compile(r"\((?:<i>)?([^()<]+)(?:</i>)?\)$")
# a cheap scan of the raw bytes, before building a tree: a page without any of these cannot
# hold a section heading as `find_sections` reads them
_HEADING_HINT = re.compile(
    rb"(?:\xc2\xa7|&sect;|&#167;|&#x[aA]7;)\s*\d+\.\d+|<h[1-6][^>]*>(?:\s|<[^>]*>)*(?:Section\s+)?\d+\.\d+",
    re.IGNORECASE,
)
_MAX_HEADING = 300
MAX_TREE_BYTES = 20 * 2**20
"""Largest page turned into a BeautifulSoup tree (about 40 bytes of memory per byte of HTML)."""
# field labels of osha.gov's standard pages; the label and its value are page metadata, not text
_METADATA_LABELS = frozenset(
    [
        "Part Number:",
        "Part Number Title:",
        "Subpart:",
        "Subpart Title:",
        "Standard Number:",
        "Title:",
        "GPO Source:",
    ]
)


@dataclass(frozen=True)
class Run:
    """The text of one block element, with the paragraph anchor it carries and whether it is a heading."""

    text: str
    anchor: str | None = None
    heading: bool = False
    italic_label: bool = False
    italic_heading: str | None = None


@dataclass(frozen=True)
class SectionDraft:
    """A section found on the page: id, heading, parent, paragraph lines, and anchors seen per id."""

    section_id: str
    heading: str
    parent_id: str
    lines: tuple[Line, ...] = ()
    anchors: tuple[str, ...] = ()


def parse_html(
    path_or_text: Path | str,
    corpus: str,
    source_url: str | None = None,
    *,
    max_tree_bytes: int = MAX_TREE_BYTES,
    **_other_formats: object,
) -> ParsedDocument:
    """Parse a regulation page; a `Path` is read from disk, a `str` is the HTML itself."""
    name, data = _load(path_or_text, source_url)
    if not _HEADING_HINT.search(data):
        raise SourceParseError(name, "no regulation sections found (no '§ N.N' or 'N.N - Title' heading)")
    if len(data) > max_tree_bytes:
        raise SourceParseError(
            name,
            f"page is {len(data) / 2**20:.1f} MB, over {max_tree_bytes / 2**20:.0f} MB (its tree needs ~40x "
            "that "
            "in memory); split the page or raise max_tree_bytes",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SourceParseError(name, f"not valid UTF-8 at byte {e.start}") from e
    try:
        runs = list(page_runs(BeautifulSoup(text, "lxml")))
    except RecursionError as e:
        raise SourceParseError(name, "HTML nested too deeply to read") from e
    drafts = find_sections(runs)
    if not drafts:
        raise SourceParseError(name, "no regulation sections found (no '§ N.N' or 'N.N - Title' heading)")
    provisions: list[Provision] = []
    oddities: list[str] = []
    document_name = Path(name).name
    for draft in drafts:
        provs, odd = split_section(
            corpus,
            draft.section_id,
            draft.heading,
            draft.lines,
            parent_id=draft.parent_id,
            order_start=provisions[-1].order + 1 if provisions else 0,
            document=document_name,
        )
        provisions += [_with_url(p, source_url, draft) for p in provs] if source_url else provs
        oddities += odd
    document = SourceDocument(
        corpus=corpus,
        name=document_name,
        format="html",
        checksum=hashlib.sha256(data).hexdigest()[:16],
        url=source_url,
    )
    return ParsedDocument(document=document, provisions=tuple(provisions), oddities=tuple(oddities))


def _load(path_or_text: Path | str, source_url: str | None) -> tuple[str, bytes]:
    if isinstance(path_or_text, Path):
        try:
            data = path_or_text.read_bytes()
        except OSError as e:
            raise SourceParseError(path_or_text, f"cannot read file: {e.strerror}") from e
        if not data:
            raise SourceParseError(path_or_text, "empty file")
        return str(path_or_text), data
    return source_url or "<html text>", path_or_text.encode("utf-8")


def _with_url(p: Provision, source_url: str, draft: SectionDraft) -> Provision:
    """Point a provision at the page it came from, at its anchor when the page has one."""
    base = source_url.split("#", 1)[0]
    anchor = next((a for a in draft.anchors if _ANCHOR.match(a) and _ANCHOR.match(a)["id"] == p.id), None)
    return p.model_copy(update={"url": f"{base}#{anchor}" if anchor else base})


def page_runs(soup: BeautifulSoup) -> Iterator[Run]:
    """Flatten the page into text runs in document order, one per block element, skipping chrome."""
    buffer: list[tuple[str, bool]] = []  # (text, set in italics)
    anchors: list[str] = []

    def flush(heading: bool) -> Iterator[Run]:
        text = " ".join("".join(t for t, _ in buffer).split())
        if text:  # an anchor on an empty wrapper stays for the text inside it
            yield Run(text, anchors[0] if anchors else None, heading, *_italics(buffer))
            anchors.clear()
        buffer.clear()

    def walk(node: Tag, heading: bool, italic: bool) -> Iterator[Run]:
        for child in node.children:
            if isinstance(child, (Comment, Declaration, Doctype, ProcessingInstruction)):
                continue
            if isinstance(child, NavigableString):
                buffer.append((str(child), italic))
                continue
            if not isinstance(child, Tag) or child.name in _DROP:
                continue
            if child.name == "br":
                buffer.append((" ", italic))
                continue
            anchor = _anchor(child)
            inner_italic = italic or child.name in _ITALIC
            if child.name in _BLOCK:
                inner = heading or child.name in _HEADINGS
                yield from flush(heading)
                anchors.extend(anchor)
                yield from walk(child, inner, inner_italic)
                yield from flush(inner)
            else:
                anchors.extend(anchor)
                yield from walk(child, heading, inner_italic)

    yield from walk(soup, False, False)
    yield from flush(False)


def _italics(segments: list[tuple[str, bool]]) -> tuple[bool, str | None]:
    """Whether the leading label is set in italics, and the italic phrase right after the labels."""
    pieces = [(t, i) for t, i in segments if t.strip()]
    raw = "".join(t for t, _ in pieces)
    labels = _LEADING_LABELS.match(raw.lstrip())
    if not labels:
        return False, None
    flags = [i for t, i in pieces for _ in t]
    offset = len(raw) - len(raw.lstrip())
    first = raw.lstrip().index(")")
    italic_label = all(flags[offset + k] for k in range(1, first))
    start, end = offset + labels.end(), offset + labels.end()
    while end < len(raw) and flags[end]:
        end += 1
    phrase = " ".join(raw[start:end].split())
    whole = not raw[end:].strip()  # an all-italic paragraph has no italic heading
    return italic_label, phrase if phrase and not whole and len(phrase.split()) <= 15 else None


def _anchor(tag: Tag) -> list[str]:
    value = tag.get("id") or tag.get("name")
    return [value] if isinstance(value, str) and _ANCHOR.match(value) else []


def find_sections(runs: list[Run]) -> list[SectionDraft]:
    """Cut runs into sections at section headings; a non-section heading ends the current section."""
    drafts: list[SectionDraft] = []
    bodies: list[list[Run]] = []
    subpart: str | None = None
    open_section = False
    skip_value = False
    for run in runs:
        section = _section_heading(run)
        subpart_match = _SUBPART.match(run.text) if len(run.text) < _MAX_HEADING else None
        label, skip_value = skip_value, run.text in _METADATA_LABELS
        if section is not None:
            sid = re.sub(r"\s*[-–]\s*", "-", section["id"])
            drafts.append(SectionDraft(sid, (section["heading"] or "").strip(), _parent(sid, subpart)))
            bodies.append([])
            open_section = True
        elif subpart_match is not None:
            subpart = subpart_match["letter"]
            if open_section and not bodies[-1]:
                drafts[-1] = replace(drafts[-1], parent_id=_parent(drafts[-1].section_id, subpart))
        elif run.heading:
            open_section = False
        elif open_section and not (label or skip_value):
            bodies[-1].append(run)
    return [
        replace(
            d,
            lines=tuple(_line(d.section_id, r) for r in body),
            anchors=tuple(r.anchor for r in body if r.anchor),
        )
        for d, body in zip(drafts, bodies)
    ]


def _parent(section_id: str, subpart: str | None) -> str:
    part = section_id.split(".")[0]
    return f"{part} Subpart {subpart}" if subpart else part


def _section_heading(run: Run) -> re.Match[str] | None:
    if len(run.text) > _MAX_HEADING:
        return None
    match = _SECTION.match(run.text)
    if match is None or not (run.heading or match["sign"]):
        return None
    return match if match["heading"] or run.heading else None


def _line(section_id: str, run: Run) -> Line:
    """The run as a paragraph line; a label only the element id carries is put in front."""
    text = run.text
    anchor = _ANCHOR.match(run.anchor) if run.anchor else None
    if anchor and anchor["id"].startswith(section_id + "(") and not text.startswith("("):
        marker = _MARKER.search(anchor["id"])
        if marker:
            text = f"({marker.group(1)}) {text}"
    return Line(text, italic_label=run.italic_label, italic_heading=run.italic_heading)
