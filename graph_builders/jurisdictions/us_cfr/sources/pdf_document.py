"""Read a regulation PDF (e.g. a printed 29 CFR 1926 subpart) into provisions with PyMuPDF.

Running headers, footers, page numbers, images and table-like noise are dropped; wrapped and
hyphenated lines are rejoined; every provision keeps the pages it was printed on.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pymupdf

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ParsedDocument, Provision, SourceDocument
from bifrost.graph_builders.jurisdictions.us_cfr.sources.paragraphs import Line, split_section

DEFAULT_MARGINS: tuple[float, float, float, float] = (50.0, 50.0, 36.0, 36.0)
"""Top, bottom, left, right margins in points trimmed off every page (values < 1 are fractions)."""

SOFT_HYPHEN = "\u00ad"
_HYPHENS = ("-", "\u2010")
_SECTION = re.compile(
    r"^(?:§+\s*)?(?P<id>[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9])[a-z]?(?:\s*[-–]\s*[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9])[a-z]?)?)\s+(?:[-–—]\s+)?(?P<heading>[A-Z\[].*)$"
)
_SUBPART = re.compile(r"^Subpart\s+(?P<letter>[A-Z]{1,2})\b\s*[-–—:.]?\s*(?P<heading>.*)$")
_MARKER = re.compile(r"^(?:\(\s?(?:[a-z]{1,4}|[0-9]{1,3}|[A-Z]{1,3})\s?\))+(?:\s|$)")
_NOTE = re.compile(r"^Notes?(?:\s+to\b[^:]*)?:", re.IGNORECASE)
_SOURCE_NOTE = re.compile(r"^\[\d+\s+FR\b")
_DEFINITION = re.compile(r"^[A-Z][\w/\-’' ,()]{0,80}?\smeans\b")
_SHORT_SENTENCE = re.compile(r"^[A-Z][\w'’/,\- ]{0,70}?[.:](?=\s)")
_DOT_LEADER = re.compile(r"\.{4,}\s*\d*$")
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?$|^[-–]\s*\d{1,4}\s*[-–]$", re.I)
_NOISE_TOKEN = re.compile(r"^[\d.,%$()\-–/:;]+$")
_TERMINAL = (".", ":", ";", "?", "!", "]")
# words a paragraph cannot end with ("; and" / "; or" do end one: "(i) ...; and" then "(ii) ...")
_CONTINUES = re.compile(
    r"(?:\b(?:paragraphs?|sections?|of|in|to|under|by|see)|§|(?<![;,])\s(?:and|or))$", re.I
)
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


@dataclass(frozen=True)
class RawLine:
    """One printed line inside the trimmed page, in reading order."""

    text: str
    page: int
    block: int
    italic_label: bool = False


@dataclass
class Fragment:
    """The part of a logical line printed on one page (mutable while lines are joined)."""

    text: str
    page: int


@dataclass
class Unit:
    """One logical line (heading, paragraph, note), as one fragment per page it is printed on."""

    fragments: list[Fragment] = field(default_factory=list)
    italic_label: bool = False

    @property
    def text(self) -> str:
        return " ".join(f.text for f in self.fragments if f.text)


@dataclass(frozen=True)
class SectionDraft:
    """A section found in the PDF: id, heading, body lines and the parent it hangs under."""

    section_id: str
    heading: str
    parent_id: str
    lines: tuple[Line, ...]
    page: int


def parse_pdf(
    path: str | Path,
    corpus: str,
    *,
    margins: tuple[float, float, float, float] = DEFAULT_MARGINS,
    url_base: str | None = "https://www.ecfr.gov/current/title-29",
    **_other_formats: object,
) -> ParsedDocument:
    """Parse a regulation PDF into provisions; unreadable, encrypted or empty files raise SourceParseError."""
    path = Path(path)
    _check_margins(margins)
    data = _read(path)
    lines, oddities = extract_lines(_open(path, data), path, margins)
    units = join_lines(lines, _hyphenated_vocabulary(lines))
    drafts, more = group_sections(units)
    oddities += more
    if not drafts:
        raise SourceParseError(
            path, "no regulation sections found (expected lines like '§ 1926.451 General requirements.')"
        )
    provisions: list[Provision] = []
    for draft in drafts:
        provs, odd = split_section(
            corpus,
            draft.section_id,
            draft.heading,
            draft.lines,
            parent_id=draft.parent_id,
            order_start=provisions[-1].order + 1 if provisions else 0,
            url_base=url_base,
            document=path.name,
        )
        provisions += _with_heading_page(provs, draft)
        oddities += odd
    document = SourceDocument(
        corpus=corpus, name=path.name, format="pdf", checksum=hashlib.sha256(data).hexdigest()[:16]
    )
    return ParsedDocument(document=document, provisions=tuple(provisions), oddities=tuple(oddities))


def _check_margins(margins: Sequence[float]) -> None:
    if len(margins) != 4 or any(m < 0 for m in margins):
        raise ValueError(
            f"margins must be 4 non-negative numbers (top, bottom, left, right), got {margins!r}"
        )


def _read(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise SourceParseError(path, f"cannot read file: {e.strerror}") from e
    if not data:
        raise SourceParseError(path, "empty file")
    return data


def _open(path: Path, data: bytes) -> pymupdf.Document:
    """Open the PDF from memory; corrupt and password-protected files become SourceParseError."""
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (RuntimeError, ValueError) as e:
        raise SourceParseError(path, f"corrupt or not a PDF ({_one_line(e)})") from e
    if doc.needs_pass:
        raise SourceParseError(path, "encrypted PDF needs a password; decrypt it first (e.g. qpdf --decrypt)")
    if doc.page_count == 0:
        raise SourceParseError(path, "PDF has no pages")
    return doc


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:200]


def _clip(page: pymupdf.Page, margins: Sequence[float]) -> pymupdf.Rect:
    r = page.rect
    top, bottom, left, right = (
        m * (r.height if i < 2 else r.width) if m < 1 else m for i, m in enumerate(margins)
    )
    return pymupdf.Rect(r.x0 + left, r.y0 + top, r.x1 - right, r.y1 - bottom)


def extract_lines(
    doc: pymupdf.Document, path: Path, margins: Sequence[float] = DEFAULT_MARGINS
) -> tuple[list[RawLine], list[str]]:
    """The text lines inside each page's margins, without images, page numbers and table-like blocks."""
    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
    lines: list[RawLine] = []
    oddities: list[str] = []
    for index in range(doc.page_count):
        try:
            page = doc.load_page(index)
            blocks = page.get_text("dict", clip=_clip(page, margins), flags=flags, sort=True)["blocks"]
        except (RuntimeError, ValueError) as e:
            raise SourceParseError(path, f"page {index + 1} cannot be read ({_one_line(e)})") from e
        for block_no, block in enumerate(b for b in blocks if b.get("type") == 0):
            found = [(_line_text(line), _italic_label(line)) for line in block.get("lines", [])]
            found = [(t, i) for t, i in found if t and not _PAGE_NUMBER.match(t)]
            text = " ".join(t for t, _ in found)
            if not found:
                continue
            if is_noise(text):
                oddities.append(f"{path.name} p.{index + 1}: dropped table-like block {text[:60]!r}")
                continue
            lines += [RawLine(t, index + 1, block_no, i) for t, i in found]
    return lines, oddities


def _line_text(line: dict) -> str:
    text = "".join(span.get("text", "") for span in line.get("spans", []))
    text = " ".join(text.split())
    # a soft hyphen inside a line is invisible; at the end it marks a hyphenation point
    body = text.rstrip(SOFT_HYPHEN).replace(SOFT_HYPHEN, "")
    return body + SOFT_HYPHEN if text.endswith(SOFT_HYPHEN) and body else body


def _italic_label(line: dict) -> bool:
    """Whether the line opens with a label set in italics, as CFR levels 5 and 6 are printed: (1), (a)."""
    spans = line.get("spans", [])
    if not _MARKER.match("".join(span.get("text", "") for span in spans).strip()):
        return False
    first = next((span for span in spans if any(c.isalnum() for c in span.get("text", ""))), None)
    return first is not None and (
        bool(first.get("flags", 0) & 2) or "italic" in first.get("font", "").lower()
    )


def is_noise(text: str) -> bool:
    """True for table-like text: mostly numbers and single characters (a section heading is never noise,
    however short: "§ 3.1 Trenches.")."""
    tokens = text.split()
    if len(tokens) < 3 or _SECTION.match(text):
        return False
    noisy = sum(1 for t in tokens if len(t) == 1 or _NOISE_TOKEN.match(t))
    return noisy / len(tokens) >= 0.6


def _hyphenated_vocabulary(lines: Iterable[RawLine]) -> frozenset[str]:
    """Hyphenated words printed whole inside a line (e.g. self-retracting), kept when split at the hyphen."""
    return frozenset(w.lower() for line in lines for w in _WORD.findall(line.text[:-1]) if "-" in w)


def join_pair(left: str, right: str, vocabulary: frozenset[str] = frozenset()) -> str:
    """Join two wrapped lines: rejoin hyphenated words, keep compounds (DGUV-Regel, 1926.450-1926.454)."""
    if not left:
        return right
    if not right:
        return left.rstrip(SOFT_HYPHEN)
    if left.endswith(SOFT_HYPHEN):
        return left[:-1] + right
    if left.endswith(_HYPHENS) and len(left) > 1 and not left[-2].isspace():
        before, after = left[-2], right[0]
        if before.islower() and after.islower():
            head = _WORD.findall(left[:-1])
            tail = _WORD.match(right)
            if head and tail and f"{head[-1]}-{tail.group(0)}".lower() in vocabulary:
                return left + right
            return left[:-1] + right
        return left + right
    return f"{left} {right}"


def _starts_unit(text: str) -> bool:
    return bool(
        _SECTION.match(text)
        or _SUBPART.match(text)
        or _MARKER.match(text)
        or _NOTE.match(text)
        or _SOURCE_NOTE.match(text)
    )


def _continues(previous: str, text: str, same_block: bool) -> bool:
    """Whether `text` continues the logical line `previous` rather than starting a new one."""
    if previous.endswith((SOFT_HYPHEN, *_HYPHENS)) or _CONTINUES.search(previous):
        return True
    if _starts_unit(text):
        return False
    if text[:1].islower():
        return True
    if previous.endswith(_TERMINAL) and _DEFINITION.match(text):
        return False
    return same_block or not previous.endswith(_TERMINAL)


def join_lines(lines: Sequence[RawLine], vocabulary: frozenset[str] = frozenset()) -> list[Unit]:
    """Group printed lines into logical lines, split into one fragment per page."""
    units: list[Unit] = []
    last: RawLine | None = None
    for line in lines:
        same_block = last is not None and (last.page, last.block) == (line.page, line.block)
        if not units or not _continues(units[-1].fragments[-1].text, line.text, same_block):
            units.append(Unit([Fragment(line.text, line.page)], line.italic_label))
        else:
            _append(units[-1], line, vocabulary)
        last = line
    return units


def _append(unit: Unit, line: RawLine, vocabulary: frozenset[str]) -> None:
    tail = unit.fragments[-1]
    if tail.page == line.page:
        tail.text = join_pair(tail.text, line.text, vocabulary)
        return
    # a new page: finish a hyphenated word on the old page, then move words over until the
    # new fragment no longer looks like the start of a provision
    words = line.text.split()
    if tail.text.endswith((SOFT_HYPHEN, *_HYPHENS)) and words:
        tail.text = join_pair(tail.text, words.pop(0), vocabulary)
    while words and _looks_like_start(" ".join(words)):
        tail.text = join_pair(tail.text, words.pop(0), vocabulary)
    if words:
        unit.fragments.append(Fragment(" ".join(words), line.page))


def _looks_like_start(text: str) -> bool:
    """Whether a page's first words would be read as a new provision (label, note, defined term)."""
    short = _SHORT_SENTENCE.match(text)
    return _starts_unit(text) or bool(_DEFINITION.match(text)) or bool(short and len(short[0].split()) <= 6)


def group_sections(units: Sequence[Unit]) -> tuple[list[SectionDraft], list[str]]:
    """Cut logical lines into sections at their headings; a heading printed twice keeps the copy with text."""
    drafts: list[SectionDraft] = []
    bodies: list[list[Line]] = []
    oddities: list[str] = []
    subpart: str | None = None
    skipped = 0
    for unit in units:
        text = unit.text
        section = _SECTION.match(text)
        if section and not _DOT_LEADER.search(text):
            sid = re.sub(r"\s*[-–]\s*", "-", section["id"])
            part = sid.split(".")[0]
            parent = f"{part} Subpart {subpart}" if subpart else part
            drafts.append(SectionDraft(sid, section["heading"].strip(), parent, (), unit.fragments[0].page))
            bodies.append([])
        elif (match := _SUBPART.match(text)) is not None:
            subpart = match["letter"]
        elif not drafts:
            skipped += 1
        else:
            bodies[-1] += [
                Line(f.text, f.page, italic_label=unit.italic_label and k == 0)
                for k, f in enumerate(unit.fragments)
                if f.text
            ]
    if skipped:
        oddities.append(f"skipped {skipped} line(s) before the first section heading")
    drafts = [replace(d, lines=tuple(body)) for d, body in zip(drafts, bodies)]
    return _dedupe(drafts, oddities), oddities


def _dedupe(drafts: list[SectionDraft], oddities: list[str]) -> list[SectionDraft]:
    best: dict[str, SectionDraft] = {}
    for d in drafts:
        kept = best.get(d.section_id)
        if kept is not None:
            oddities.append(f"section {d.section_id} printed more than once; kept the copy with more text")
            if len(d.lines) <= len(kept.lines):
                continue
        best[d.section_id] = d
    return [d for d in drafts if best[d.section_id] is d]


def _with_heading_page(provisions: Sequence[Provision], draft: SectionDraft) -> list[Provision]:
    """The section provision is also on the page its heading was printed on."""
    out = []
    for p in provisions:
        if p.id == draft.section_id and draft.page not in p.pages:
            p = p.model_copy(update={"pages": tuple(sorted({*p.pages, draft.page}))})
        out.append(p)
    return out
