"""What every source parser shares: one file of a corpus in, one `ParsedDocument` out.

`sniff.read_source` picks the parser by extension (and content, for ADGM JSON) and calls it
through this protocol, so it never looks at which parser it got.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from bifrost.core.types import ParsedDocument


class SourceParser(Protocol):
    """Parses one source file into a corpus's provisions; options meant for other formats are ignored.

    One ingest may mix formats (`part-1926.json page.html scan.pdf`) with one set of options
    (e.g. the JSON's `structure_path`), so a parser takes the options it knows and skips the rest.
    """

    def __call__(self, path: Path, corpus: str, /, **options: Any) -> ParsedDocument: ...
