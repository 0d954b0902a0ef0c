"""What every source parser shares: one file of a corpus in, one `ParsedDocument` out.

`sniff.read_source` picks the parser by suffix from the formats a jurisdiction pack declares and calls it
through this protocol, so it never looks at which parser it got.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bifrost.core.types import ParsedDocument


class SourceParser(Protocol):
    """Parses one source file into a corpus's provisions; options meant for other formats are ignored.

    One ingest may mix formats (`part-1926.json page.html scan.pdf`) with one set of options
    (e.g. the JSON's `structure_path`), so a parser takes the options it knows and skips the rest.
    """

    def __call__(self, path: Path, corpus: str, /, **options: Any) -> ParsedDocument: ...


@dataclass(frozen=True)
class SourceFormat:
    """A file format a pack reads: its suffix, the parser (``module:function``, imported on first use) and
    the content check run before it (``json``, ``markup``, ``pdf`` or ``text``)."""

    suffix: str
    parser: str
    content: str
