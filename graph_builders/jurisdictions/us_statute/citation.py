"""Statute citations: a section number and its subdivisions in parentheses, ``11``, ``11(c)``, ``11(c)(1)``,
``5(a)(1)(A)``; written "section 11(c)", "SEC. 11(c)(1)", "sec. 5(a)(1)" or bare "11(c)". The preamble is
``Preamble``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bifrost.core.errors import CitationError

PREAMBLE = "Preamble"
_ID = re.compile(
    r"^\s*(?:(?:sec(?:tion)?s?|§)\.?\s*)?(?P<sec>\d+)(?P<subs>(?:\s*\([0-9A-Za-z]{1,5}\))*)\s*$", re.I
)
_LABEL = re.compile(r"\(([0-9A-Za-z]{1,5})\)")
ROMAN = frozenset("i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx".split())


@dataclass(frozen=True)
class StatuteCitation:
    section: int
    labels: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "section" if not self.labels else "paragraph"

    @property
    def level(self) -> int:
        return 1 + len(self.labels)

    def parent(self) -> StatuteCitation | None:
        return StatuteCitation(self.section, self.labels[:-1]) if self.labels else None

    def ancestors(self) -> tuple[StatuteCitation, ...]:
        up, out = self.parent(), []
        while up is not None:
            out.append(up)
            up = up.parent()
        return tuple(out)

    def is_ancestor_of(self, other: StatuteCitation) -> bool:
        return self in other.ancestors()

    def sort_key(self) -> tuple:
        return (self.section, *(label_key(x) for x in self.labels))

    def __str__(self) -> str:
        return str(self.section) + "".join(f"({x})" for x in self.labels)

    @classmethod
    def parse(cls, text: str) -> StatuteCitation:
        m = _ID.match(text or "")
        if m is None:
            raise CitationError(text, "expected a section number and its subdivisions, e.g. 11(c)(1)")
        return cls(int(m.group("sec")), tuple(_LABEL.findall(m.group("subs") or "")))


def label_key(label: str) -> tuple[int, int]:
    """Document order of one subdivision label: digits by value, letters by alphabet, roman numerals by
    value."""
    if label.isdigit():
        return (1, int(label))
    if label.lower() in ROMAN and len(label) > 1:
        return (3, _roman_value(label.lower()))
    return (2, ord(label.lower()[0]) - ord("a"))


def _roman_value(r: str) -> int:
    values = {"i": 1, "v": 5, "x": 10}
    total = 0
    for a, b in zip(r, r[1:] + " "):
        total += -values[a] if values.get(b, 0) > values[a] else values[a]
    return total


def normalize(text: str) -> str:
    """ "section 11 (c)(1)" -> "11(c)(1)"; the preamble as itself."""
    if text.strip().lower() == PREAMBLE.lower():
        return PREAMBLE
    return str(StatuteCitation.parse(text))


class StatuteGrammar:
    jurisdiction = "us-statute"

    def parse(self, text: str) -> StatuteCitation:
        return StatuteCitation.parse(text)

    def normalize(self, text: str) -> str:
        return normalize(text)

    def validate(self, text: str) -> bool:
        try:
            normalize(text)
        except CitationError:
            return False
        return True

    def parent(self, citation_id: str) -> str | None:
        if citation_id == PREAMBLE:
            return None
        up = StatuteCitation.parse(citation_id).parent()
        return str(up) if up is not None else None

    def compare(self, a: str, b: str) -> int:
        ka, kb = StatuteCitation.parse(a).sort_key(), StatuteCitation.parse(b).sort_key()
        return (ka > kb) - (ka < kb)

    def expand(self, start: str, end: str, known_ids: Iterable[str] | None = None) -> list[str]:
        first, last = StatuteCitation.parse(start), StatuteCitation.parse(end)
        if first.labels or last.labels:
            raise CitationError(f"{start} through {end}", "a range of a statute runs over whole sections")
        return [str(n) for n in range(first.section, last.section + 1)]
