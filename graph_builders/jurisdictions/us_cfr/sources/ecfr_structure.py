"""Read the eCFR structure API output (title-29-structure.json) for subpart membership and headings.

The structure file holds no text, only the hierarchy; scrapers use it to place sections in
subparts when their own source does not say, and to name parts and subparts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bifrost.core.errors import SourceParseError


@dataclass(frozen=True)
class SubpartInfo:
    """One subpart of a part: letter, heading, reserved flag and its section ids in order."""

    letter: str
    heading: str
    reserved: bool
    sections: tuple[str, ...]


@dataclass(frozen=True)
class PartStructure:
    """A part's heading and subparts, with a section -> subpart letter map."""

    part: str
    heading: str
    subparts: tuple[SubpartInfo, ...]

    @property
    def section_to_subpart(self) -> Mapping[str, str]:
        return {s: sp.letter for sp in self.subparts for s in sp.sections}

    def subpart(self, letter: str) -> SubpartInfo | None:
        return next((sp for sp in self.subparts if sp.letter == letter), None)


def _walk(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield node
    for child in node.get("children") or ():
        if isinstance(child, Mapping):
            yield from _walk(child)


def _sections(node: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(
        str(n["identifier"]) for n in _walk(node) if n.get("type") == "section" and "identifier" in n
    )


def part_structures(tree: Mapping[str, Any]) -> dict[str, PartStructure]:
    """Every part in a structure tree, keyed by part number."""
    out: dict[str, PartStructure] = {}
    for node in _walk(tree):
        if node.get("type") != "part":
            continue
        subparts = tuple(
            SubpartInfo(
                letter=str(c.get("identifier", "")),
                heading=str(c.get("label_description") or "").strip(),
                reserved=bool(c.get("reserved")),
                sections=_sections(c),
            )
            for c in node.get("children") or ()
            if isinstance(c, Mapping) and c.get("type") == "subpart"
        )
        out[str(node.get("identifier"))] = PartStructure(
            part=str(node.get("identifier")),
            heading=str(node.get("label_description") or "").strip(),
            subparts=subparts,
        )
    return out


def load_structure(path: Path) -> dict[str, PartStructure]:
    """Parts of a structure JSON file; an unreadable or malformed file raises SourceParseError."""
    try:
        tree = json.loads(Path(path).read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SourceParseError(path, f"cannot read eCFR structure JSON: {e}") from e
    if not isinstance(tree, Mapping):
        raise SourceParseError(path, f"expected a JSON object at the top level, found {type(tree).__name__}")
    return part_structures(tree)
