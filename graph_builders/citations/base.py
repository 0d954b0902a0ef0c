"""What every jurisdiction's citations share (CFR `1926.502(b)(15)`, ADGM `6.1.1.(b)`).

A grammar parses printed ids into citations that know their kind, level and tree place, and
offers string-in, string-out helpers (normalize, validate, parent, compare, expand ranges).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, Self, runtime_checkable


@runtime_checkable
class ParsedCitation(Protocol):
    """One parsed id: its kind and level, its citation parent and ancestors, its document order."""

    @property
    def kind(self) -> str:
        """What the id addresses (part, section, paragraph, ...), in the jurisdiction's words."""
        ...

    @property
    def level(self) -> int:
        """Depth in the numbering, 0 at the top."""
        ...

    def parent(self) -> Self | None:
        """The citation one level up, None at the top."""
        ...

    def ancestors(self) -> tuple[Self, ...]:
        """Parents up to the top, nearest first."""
        ...

    def is_ancestor_of(self, other: Self) -> bool:
        """True if `other` sits below this citation."""
        ...

    def sort_key(self) -> tuple:
        """Key of document (numbering) order."""
        ...

    def __lt__(self, other: object) -> bool: ...

    def __str__(self) -> str: ...


@runtime_checkable
class CitationGrammar(Protocol):
    """A jurisdiction's citation grammar: parse printed ids, and the same operations on id strings."""

    jurisdiction: str

    def parse(self, text: str) -> ParsedCitation:
        """The citation, or CitationError naming the text and what was expected."""
        ...

    def normalize(self, text: str) -> str:
        """The id form of a printed citation."""
        ...

    def validate(self, text: str) -> bool:
        """True if the grammar accepts the text."""
        ...

    def parent(self, citation_id: str) -> str | None:
        """The citation parent's id, None at the top."""
        ...

    def compare(self, a: str, b: str) -> int:
        """-1, 0 or 1 by document order."""
        ...

    def expand(self, start: str, end: str, known_ids: Iterable[str] | None = None) -> list[str]:
        """The ids from start through end (siblings), over `known_ids` where numbering is not arithmetic."""
        ...
