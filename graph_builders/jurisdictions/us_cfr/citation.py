"""US Code of Federal Regulations citation grammar: parse, validate, normalize, compare, expand.

Ids follow CONVENTIONS.md (`1926`, `1926 Subpart M`, `1926 Subpart M Appendix B`, `1926.502`,
`1926.502(b)(15)`, `1926.500(b)[Leading edge]`). The grammar is schema-locking: what it rejects
never becomes a node or an edge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import total_ordering

from bifrost.core.errors import CitationError

MAX_LABELS = 6
MAX_RANGE = 500
_LEVEL_NAMES = ("(a)", "(1)", "(i)", "(A)", "(<i>1</i>)", "(<i>a</i>)")

_ROMAN = (("xl", 40), ("x", 10), ("ix", 9), ("v", 5), ("iv", 4), ("i", 1))
_MAX_ROMAN = 39
_MAX_NUMBER = 99

# Numbers are ASCII digits without leading zeros (`\d` would take `١٩٢٦` and `0926`, ids that
# differ from `1926` yet mean it); ASCII also keeps IGNORECASE from matching `ſ` or the Kelvin sign.
_NUM = r"([1-9][0-9]{0,3})"
# a section number may carry a letter, as the scrapers read it (`§ 1926.501a`)
_SECTION_NUM = r"([1-9][0-9]{0,3}[a-z]?)"
_PART_RE = re.compile(rf"^(?:part\s+)?{_NUM}$", re.IGNORECASE | re.ASCII)
_SUBPART_RE = re.compile(
    rf"^(?:part\s+)?{_NUM}\s+subpart\s+([A-Z]{{1,2}})(?:\s+appendix\s+([A-Z]{{1,2}}))?$",
    re.IGNORECASE | re.ASCII,
)
_SECTION_APPENDIX_RE = re.compile(
    rf"^{_NUM}\.{_SECTION_NUM}\s+appendix(?:\s+([A-Z]{{1,2}}))?$", re.IGNORECASE | re.ASCII
)
_SECTION_RE = re.compile(rf"^{_NUM}\.{_SECTION_NUM}((?:\([^()\[\]]+\))*)(?:\[([^\[\]]+)\])?$", re.ASCII)
_LABEL_RE = re.compile(r"\(([^()]+)\)")
_PREFIX_RE = re.compile(r"^(?:(?:\d+\s+)?CFR\s+)?(?:§§?|sections?)?\s*", re.IGNORECASE)


def roman_to_int(text: str) -> int | None:
    """Value of a lowercase roman numeral in canonical form (i..xxxix), else None."""
    value, rest = 0, text
    for sym, val in _ROMAN:
        count = 0
        while rest.startswith(sym):
            rest = rest[len(sym) :]
            value += val
            count += 1
            if count > (3 if sym in ("x", "i") else 1):
                return None
    if rest or not 1 <= value <= _MAX_ROMAN or int_to_roman(value) != text:
        return None
    return value


def int_to_roman(value: int) -> str:
    """Lowercase roman numeral for 1..39."""
    out = []
    for sym, val in _ROMAN:
        while value >= val:
            out.append(sym)
            value -= val
    return "".join(out)


def _letter_value(text: str, lower: bool) -> int | None:
    """(a)=1 .. (z)=26, then doubled letters (aa)=27 .. (zz)=52; None if not a letter label."""
    ok = text.islower() if lower else text.isupper()
    if not ok or not text.isascii() or not text.isalpha() or len(text) > 2 or len(set(text)) != 1:
        return None
    return (ord(text[0].lower()) - ord("a") + 1) + 26 * (len(text) - 1)


def _letter_label(value: int, lower: bool) -> str:
    ch = chr(ord("a") + (value - 1) % 26) * ((value - 1) // 26 + 1)
    return ch if lower else ch.upper()


def label_value(label: str, position: int) -> int | None:
    """Ordinal value of a paragraph label at a position (0-based level), or None if invalid there."""
    if position in (0, 5):
        return _letter_value(label, lower=True)
    if position in (1, 4):
        if not (label.isascii() and label.isdigit()) or label.startswith("0"):
            return None
        n = int(label)
        return n if 1 <= n <= _MAX_NUMBER else None
    if position == 2:
        return roman_to_int(label)
    if position == 3:
        return _letter_value(label, lower=False) if len(label) == 1 else None
    return None


def label_for(value: int, position: int) -> str:
    """The label with ordinal `value` at `position` (inverse of :func:`label_value`)."""
    if position in (0, 5):
        return _letter_label(value, lower=True)
    if position in (1, 4):
        return str(value)
    if position == 2:
        return int_to_roman(value)
    return _letter_label(value, lower=False)


def label_positions(label: str) -> tuple[int, ...]:
    """Positions (0-based paragraph levels) at which a bare label is valid, deepest first."""
    return tuple(p for p in reversed(range(MAX_LABELS)) if label_value(label, p) is not None)


def validate_labels(citation: str, labels: Sequence[str]) -> None:
    """Raise CitationError unless each label is valid at its level ((a), (1), (i), (A), (1), (a))."""
    if len(labels) > MAX_LABELS:
        raise CitationError(citation, f"{len(labels)} paragraph levels; CFR has at most {MAX_LABELS}")
    for pos, label in enumerate(labels):
        if label_value(label, pos) is None:
            raise CitationError(
                citation,
                f"label ({label}) is not valid at paragraph level {pos + 1}, which expects "
                f"{_LEVEL_NAMES[pos]}-style labels (levels: {' '.join(_LEVEL_NAMES)})",
            )


@total_ordering
@dataclass(frozen=True)
class CfrCitation:
    """One parsed CFR citation: part, subpart/appendix, section, paragraph labels, id suffix.

    `appendix` is a letter, or "" for a section's single unlettered appendix (`1926.703 Appendix`).
    """

    part: str
    section: str | None = None
    paragraphs: tuple[str, ...] = ()
    suffix: str | None = None
    subpart: str | None = None
    appendix: str | None = None

    @classmethod
    def parse(cls, text: str) -> CfrCitation:
        """Parse a citation in any common printed form; raise CitationError if the grammar rejects it."""
        if not isinstance(text, str) or not text.strip():
            raise CitationError(str(text), "empty citation; expected e.g. '1926.502(k)' or '1926 Subpart M'")
        norm = _squash(text)
        if m := _PART_RE.match(norm):
            return cls(part=m.group(1))
        if m := _SUBPART_RE.match(norm):
            appendix = m.group(3).upper() if m.group(3) else None
            return cls(part=m.group(1), subpart=m.group(2).upper(), appendix=appendix)
        if m := _SECTION_APPENDIX_RE.match(norm):
            return cls(part=m.group(1), section=m.group(2), appendix=(m.group(3) or "").upper())
        m = _SECTION_RE.match(norm)
        if not m:
            raise CitationError(
                text,
                "not a CFR citation; expected 'PART.SECTION(a)(1)...', 'PART Subpart X [Appendix Y]', "
                "'PART.SECTION Appendix Y' or 'PART', "
                "e.g. '1926.451(g)(1)'",
            )
        part, section, label_text, suffix = m.groups()
        labels = tuple(_LABEL_RE.findall(label_text))
        if "".join(f"({x})" for x in labels) != label_text:
            raise CitationError(text, f"malformed paragraph labels {label_text!r}")
        validate_labels(text, labels)
        if suffix is not None:
            suffix = suffix.strip()
            if not suffix:
                raise CitationError(text, "empty [suffix]; expected a defined term or 'Note'")
        return cls(part=part, section=section, paragraphs=labels, suffix=suffix)

    @property
    def kind(self) -> str:
        """part, subpart, appendix, section, paragraph, or suffixed (definition/note)."""
        if self.suffix is not None:
            return "suffixed"
        if self.appendix is not None:
            return "appendix"
        if self.paragraphs:
            return "paragraph"
        if self.section is not None:
            return "section"
        return "subpart" if self.subpart is not None else "part"

    @property
    def section_id(self) -> str | None:
        """`1926.502` for any citation inside a section, else None."""
        return f"{self.part}.{self.section}" if self.section is not None else None

    @property
    def level(self) -> int:
        """Part 0, subpart 1, section 2, paragraphs 3..8, appendix = parent + 1, suffixed = parent + 1."""
        if self.suffix is not None:
            return self.without_suffix().level + 1
        if self.section is not None and self.appendix is not None:
            return 3
        if self.section is not None:
            return 2 + len(self.paragraphs)
        if self.appendix is not None:
            return 2
        return 1 if self.subpart is not None else 0

    def without_suffix(self) -> CfrCitation:
        return CfrCitation(self.part, self.section, self.paragraphs, None, self.subpart, self.appendix)

    def with_paragraphs(self, labels: Sequence[str]) -> CfrCitation:
        """The same section with other paragraph labels (validated)."""
        if self.section is None:
            raise CitationError(str(self), "only a section citation can take paragraph labels")
        cit = CfrCitation(self.part, self.section, tuple(labels))
        validate_labels(str(cit), cit.paragraphs)
        return cit

    def parent(self) -> CfrCitation | None:
        """Citation parent: label dropped, section -> part, appendix -> subpart -> part.

        A section's subpart is not part of its citation; ask the corpus for it.
        """
        if self.suffix is not None:
            return self.without_suffix()
        if self.section is not None and self.appendix is not None:
            return CfrCitation(self.part, self.section)
        if self.paragraphs:
            return CfrCitation(self.part, self.section, self.paragraphs[:-1])
        if self.section is not None:
            return CfrCitation(self.part)
        if self.appendix is not None:
            return CfrCitation(self.part, subpart=self.subpart)
        return CfrCitation(self.part) if self.subpart is not None else None

    def ancestors(self) -> tuple[CfrCitation, ...]:
        """Parents up to the part, nearest first."""
        out: list[CfrCitation] = []
        cur = self.parent()
        while cur is not None:
            out.append(cur)
            cur = cur.parent()
        return tuple(out)

    def is_ancestor_of(self, other: CfrCitation) -> bool:
        return self in other.ancestors()

    def is_descendant_of(self, other: CfrCitation) -> bool:
        return other.is_ancestor_of(self)

    def sort_key(self) -> tuple:
        """Document-order key: exact within a part's sections; subparts/appendices sort first.

        Equal keys mean equal citations, and a citation sorts after its ancestors."""
        if self.section is None:
            if self.subpart is None:
                return (int(self.part),)
            app = (_letters_key(self.appendix),) if self.appendix is not None else ()
            return (int(self.part), 0, _letters_key(self.subpart), *app)
        labels = tuple((0, label_value(lab, i) or 0) for i, lab in enumerate(self.paragraphs))
        tail = ((1, self.suffix),) if self.suffix is not None else ()
        if self.appendix is not None:
            tail = ((2, *_letters_key(self.appendix)),)
        number = self.section.rstrip("abcdefghijklmnopqrstuvwxyz")  # § 1926.501a sorts right after § 1926.501
        return (int(self.part), 1, int(number), self.section[len(number) :], *labels, *tail)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, CfrCitation):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        if self.section is not None and self.appendix is not None:
            return f"{self.part}.{self.section} Appendix {self.appendix}".rstrip()
        if self.section is not None:
            labels = "".join(f"({x})" for x in self.paragraphs)
            suffix = f"[{self.suffix}]" if self.suffix is not None else ""
            return f"{self.part}.{self.section}{labels}{suffix}"
        if self.subpart is not None:
            app = f" Appendix {self.appendix}" if self.appendix else ""
            return f"{self.part} Subpart {self.subpart}{app}"
        return self.part


def _letters_key(letters: str) -> tuple[int, str]:
    """Order of subpart and appendix letters: A..Z, then AA, AB, .., BB, .. (shorter first)."""
    return (len(letters), letters)


def _squash(text: str) -> str:
    """Printed form -> id form: drop `§`/`29 CFR`, spaces around and inside labels."""
    t = " ".join(text.replace("\u00a0", " ").split())
    t = _PREFIX_RE.sub("", t, count=1)
    if "[" in t:
        head, _, rest = t.partition("[")
        return re.sub(r"\s*\(\s*([^()\s]+)\s*\)", r"(\1)", head).strip() + "[" + rest
    return re.sub(r"\s*\(\s*([^()\s]+)\s*\)", r"(\1)", t).strip()


def parse(text: str) -> CfrCitation:
    """Parse a CFR citation (see :meth:`CfrCitation.parse`)."""
    return CfrCitation.parse(text)


def normalize(text: str) -> str:
    """Canonical id of a printed citation: '§ 1926.502 (k)' -> '1926.502(k)'."""
    return str(CfrCitation.parse(text))


def is_valid(text: str) -> bool:
    """True if the grammar accepts the citation."""
    try:
        CfrCitation.parse(text)
    except CitationError:
        return False
    return True


def _check_range(start: CfrCitation, end: CfrCitation) -> None:
    where = f"{start} through {end}"
    if start.suffix is not None or end.suffix is not None:
        raise CitationError(where, "a range cannot start or end at a definition or note")
    if start.kind != end.kind or start.parent() != end.parent() or start.level != end.level:
        raise CitationError(where, "range ends must be siblings (same parent and level)")
    if end < start:
        raise CitationError(where, "range end comes before its start; swap them")


def expand_range(
    start: CfrCitation, end: CfrCitation, known_ids: Iterable[str] | None = None
) -> tuple[CfrCitation, ...]:
    """Siblings from start through end inclusive, in document order.

    With `known_ids`, only ids that exist (reserved ranges and gaps are skipped); without, by label
    arithmetic (section numbers, letters, numbers, roman numerals).
    """
    _check_range(start, end)
    if known_ids is not None:
        parent, level = start.parent(), start.level
        found = set()
        for pid in known_ids:
            try:
                cit = CfrCitation.parse(pid)
            except CitationError:
                continue
            if cit.suffix is None and cit.level == level and cit.parent() == parent and start <= cit <= end:
                found.add(cit)
        return tuple(sorted(found))
    if start.kind == "section":
        lo, hi = int(start.section or 0), int(end.section or 0)
        _check_size(start, end, hi - lo)
        return tuple(CfrCitation(start.part, str(n)) for n in range(lo, hi + 1))
    if start.kind == "paragraph":
        pos = len(start.paragraphs) - 1
        lo = label_value(start.paragraphs[-1], pos) or 0
        hi = label_value(end.paragraphs[-1], pos) or 0
        _check_size(start, end, hi - lo)
        prefix = start.paragraphs[:-1]
        return tuple(
            CfrCitation(start.part, start.section, (*prefix, label_for(v, pos))) for v in range(lo, hi + 1)
        )
    if start.kind == "subpart":
        lo = _letter_value((start.subpart or "").lower(), True) or 0
        hi = _letter_value((end.subpart or "").lower(), True) or 0
        _check_size(start, end, hi - lo)
        return tuple(CfrCitation(start.part, subpart=_letter_label(v, False)) for v in range(lo, hi + 1))
    if start == end:
        return (start,)
    raise CitationError(f"{start} through {end}", f"cannot expand a range of {start.kind}s without known ids")


def _check_size(start: CfrCitation, end: CfrCitation, span: int) -> None:
    if span > MAX_RANGE:
        raise CitationError(f"{start} through {end}", f"range of {span + 1} items exceeds {MAX_RANGE}")


class CfrGrammar:
    """The US CFR citation grammar behind the :class:`~bifrost.graph_builders.citations.base.CitationGrammar`
    protocol."""

    jurisdiction = "us-cfr"

    def parse(self, text: str) -> CfrCitation:
        return CfrCitation.parse(text)

    def normalize(self, text: str) -> str:
        return normalize(text)

    def validate(self, text: str) -> bool:
        return is_valid(text)

    def parent(self, citation_id: str) -> str | None:
        par = CfrCitation.parse(citation_id).parent()
        return str(par) if par is not None else None

    def compare(self, a: str, b: str) -> int:
        """-1, 0 or 1 by document order of the citations."""
        ka, kb = CfrCitation.parse(a).sort_key(), CfrCitation.parse(b).sort_key()
        return (ka > kb) - (ka < kb)

    def expand(self, start: str, end: str, known_ids: Iterable[str] | None = None) -> list[str]:
        return [str(c) for c in expand_range(CfrCitation.parse(start), CfrCitation.parse(end), known_ids)]
