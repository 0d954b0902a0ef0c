"""ADGM PassageID grammar: parse, normalize, parent and compare passage ids within one document.

ADGM rulebooks number passages as dot-separated segments (`6.1.1`, `6.1.1.(b)`,
`6.1.3.Guidance.7.`, `Part 12.Chapter 3.148.(1)`, `APP11.A11.1.Guidance.11.`, `9.3.1B`, `12)`).
An id is normalized segment by segment (spaces squashed, trailing dots dropped, `PART 4` -> `Part 4`,
`APP 4` -> `APP4`, glued labels `8.5.1(2)` -> `8.5.1.(2)`); the parent drops the last segment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import total_ordering

from bifrost.core.errors import CitationError

MAX_SEGMENTS = 12
MAX_SEGMENT_CHARS = 120

_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060\ufeff]")
_GLUED_LABEL = re.compile(r"^(.*?[0-9A-Za-z])(\([0-9A-Za-z]{1,6}\))$")
_NUMBER = re.compile(r"^\d{1,4}[A-Z]{0,2}$")
_LABEL = re.compile(r"^\(([0-9A-Za-z]{1,6})\)$")
_CLOSING = re.compile(r"^([0-9A-Za-z]{1,4})\)$")
_LETTER = re.compile(r"^[a-z]$")
_CONTAINER = re.compile(
    r"^(Part|Chapter|Schedule|Section|Annex|Appendix|APP)\s*([0-9A-Z]{1,6}:?)?$", re.IGNORECASE
)
_APPENDIX_RULE = re.compile(r"^A\d{1,2}$")
_GUIDANCE = re.compile(r"^Guidance\s*\d*$", re.IGNORECASE)
_TITLE = re.compile(r"^[A-Za-z][\w ()/&,'’:-]*$")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50}


def _clean(text: str) -> str:
    return " ".join(_INVISIBLE.sub("", text.replace("\u00a0", " ")).split())


def _segment(raw: str) -> str:
    """Canonical form of one segment: `PART 4` -> `Part 4`, `APP 4` -> `APP4`, `Guidance 2` -> `Guidance2`."""
    s = raw.strip()
    m = _CONTAINER.match(s)
    if m:
        word, num = m.group(1).lower(), (m.group(2) or "")
        if word == "app":
            return f"APP{num}"
        return f"{word.capitalize()} {num}".strip()
    if _GUIDANCE.match(s):
        return "Guidance" + s[len("guidance") :].strip()
    return s


def _split(text: str) -> tuple[str, ...]:
    segs: list[str] = []
    for raw in _clean(text).split("."):
        raw = raw.strip()
        if not raw:
            continue
        m = _GLUED_LABEL.match(raw)
        if m and not _CONTAINER.match(raw):
            segs.extend((m.group(1), m.group(2)))
        else:
            segs.append(raw)
    return tuple(_segment(s) for s in segs)


def segment_kind(seg: str) -> str:
    """number, label `(b)`, item `12)`, letter `a`, container `Part 3`, appendix rule `A4`, guidance,
    title."""
    if _NUMBER.match(seg):
        return "number"
    if _LABEL.match(seg):
        return "label"
    if _CLOSING.match(seg):
        return "item"
    if _LETTER.match(seg):
        return "letter"
    if _GUIDANCE.match(seg):
        return "guidance"
    if _CONTAINER.match(seg):
        return "container"
    if _APPENDIX_RULE.match(seg):
        return "appendix_rule"
    if _TITLE.match(seg):
        return "title"
    return "other"


def _roman(text: str) -> int | None:
    t = text.lower()
    if not t or any(c not in _ROMAN for c in t):
        return None
    vals = [_ROMAN[c] for c in t]
    return sum(-v if i + 1 < len(vals) and v < vals[i + 1] else v for i, v in enumerate(vals))


def _segment_key(seg: str) -> tuple:
    """Order within siblings: numbers by value (then letter suffix), labels by value, text last."""
    kind = segment_kind(seg)
    if kind == "number":
        digits = re.match(r"\d+", seg)
        return (0, int(digits.group(0)) if digits else 0, seg)
    if kind in ("label", "item", "letter"):  # `(b)`, `b)` and `b` are different ids: the segment breaks ties
        inner = seg.strip("()")
        if inner.isdigit():
            return (1, int(inner), "", seg)
        roman = _roman(inner) if len(inner) > 1 else None
        return (1, roman if roman is not None else ord(inner[0].lower()) - 96, inner, seg)
    if kind == "container":
        word, _, num = seg.partition(" ")
        n = int(num) if num.isdigit() else (_roman(num) or 0)
        return (2, word, n, num, seg)
    if kind == "guidance":
        return (3, seg)
    return (4, seg)


@total_ordering
@dataclass(frozen=True)
class AdgmCitation:
    """A parsed ADGM PassageID: its normalized segments, outermost first."""

    segments: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> AdgmCitation:
        """Parse a PassageID as printed; raise CitationError if it has no usable segment."""
        if not isinstance(text, str) or not _clean(text).strip(". "):
            raise CitationError(
                str(text), "empty passage id; expected e.g. '6.1.1' or 'Part 12.Chapter 3.148.(1)'"
            )
        segs = _split(text)
        if len(segs) > MAX_SEGMENTS:
            raise CitationError(text, f"{len(segs)} segments; an ADGM passage id has at most {MAX_SEGMENTS}")
        for seg in segs:
            if len(seg) > MAX_SEGMENT_CHARS:
                raise CitationError(text, f"segment {seg[:40]!r}... is over {MAX_SEGMENT_CHARS} characters")
        return cls(segs)

    @property
    def level(self) -> int:
        """0 for a top-level id (`6`, `Part 1`, `APP1`), one more per segment."""
        return len(self.segments) - 1

    @property
    def kind(self) -> str:
        """What the id addresses: part, chapter, appendix, guidance, paragraph or section."""
        last = self.segments[-1]
        lk = segment_kind(last)
        if any(segment_kind(s) == "guidance" for s in self.segments):
            return "guidance"
        if lk == "container":
            word = last.split(" ")[0]
            return {"Part": "part", "Chapter": "chapter"}.get(word, "appendix")
        if lk in ("label", "item", "letter"):
            return "paragraph"
        return "section"

    def parent(self) -> AdgmCitation | None:
        """The id with its last segment dropped (None at the top)."""
        return AdgmCitation(self.segments[:-1]) if len(self.segments) > 1 else None

    def ancestors(self) -> tuple[AdgmCitation, ...]:
        """Parents up to the top, nearest first."""
        return tuple(AdgmCitation(self.segments[:n]) for n in range(len(self.segments) - 1, 0, -1))

    def is_ancestor_of(self, other: AdgmCitation) -> bool:
        n = len(self.segments)
        return n < len(other.segments) and other.segments[:n] == self.segments

    def rule_key(self) -> AdgmCitation:
        """The id without leading `Part`/`Chapter` containers: FSMR `Part 6.Chapter 1.58.(2)` -> `58.(2)`.

        Rules and sections are cited by this number (`section 58(2)`, FUNDS `Rule 9.2.1`).
        """
        segs = self.segments
        i = 0
        while i < len(segs) - 1 and segs[i].split(" ")[0] in ("Part", "Chapter"):
            i += 1
        return AdgmCitation(segs[i:])

    def sort_key(self) -> tuple:
        return tuple(_segment_key(s) for s in self.segments)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, AdgmCitation):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        return ".".join(self.segments)


def parse(text: str) -> AdgmCitation:
    """Parse an ADGM PassageID (see :meth:`AdgmCitation.parse`)."""
    return AdgmCitation.parse(text)


def normalize(text: str) -> str:
    """Canonical form of a PassageID: `PART 4.9.2.1.` -> `Part 4.9.2.1`, `8.5.1(2)` -> `8.5.1.(2)`."""
    return str(AdgmCitation.parse(text))


def is_valid(text: str) -> bool:
    """True if the grammar accepts the PassageID."""
    try:
        AdgmCitation.parse(text)
    except CitationError:
        return False
    return True


class AdgmGrammar:
    """The ADGM PassageID grammar behind the :class:`~bifrost.graph_builders.citations.base.CitationGrammar`
    protocol."""

    jurisdiction = "adgm"

    def parse(self, text: str) -> AdgmCitation:
        return AdgmCitation.parse(text)

    def normalize(self, text: str) -> str:
        return normalize(text)

    def validate(self, text: str) -> bool:
        return is_valid(text)

    def parent(self, citation_id: str) -> str | None:
        par = AdgmCitation.parse(citation_id).parent()
        return str(par) if par is not None else None

    def compare(self, a: str, b: str) -> int:
        """-1, 0 or 1 by numbering order of the two ids (within one document)."""
        ka, kb = AdgmCitation.parse(a).sort_key(), AdgmCitation.parse(b).sort_key()
        return (ka > kb) - (ka < kb)

    def expand(self, start: str, end: str, known_ids: Iterable[str] | None = None) -> list[str]:
        """Siblings from start through end in numbering order; needs `known_ids` (ids are not arithmetic)."""
        a, b = AdgmCitation.parse(start), AdgmCitation.parse(end)
        if a.parent() != b.parent():
            raise CitationError(f"{start} to {end}", "range ends must be siblings (same parent)")
        if b < a:
            raise CitationError(f"{start} to {end}", "range end comes before its start; swap them")
        if known_ids is None:
            return [str(a)] if a == b else [str(a), str(b)]
        found = set()
        for kid in known_ids:
            try:
                c = AdgmCitation.parse(kid)
            except CitationError:
                continue
            if c.parent() == a.parent() and a <= c <= b:
                found.add(c)
        return [str(c) for c in sorted(found)]
