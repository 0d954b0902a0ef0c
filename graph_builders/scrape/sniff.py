"""Read a source file with the parser its corpus's pack declares for its suffix, guarded against bad input.

Empty, oversized, non-UTF-8, mislabelled and unknown files are refused before any parser
runs; syntax errors a parser lets through become a one-line `SourceParseError` naming the file.
"""

from __future__ import annotations

import codecs
import importlib
import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from pathlib import Path

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ParsedDocument
from bifrost.graph_builders.scrape.base import SourceFormat, SourceParser

DEFAULT_MAX_BYTES = 200 * 1024 * 1024
CHUNK = 1024 * 1024


def _syntax_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean 'this file is malformed' whichever parser raised them."""
    errors: list[type[BaseException]] = [json.JSONDecodeError, ElementTree.ParseError, UnicodeDecodeError]
    try:
        from lxml import etree

        errors.append(etree.LxmlSyntaxError)
    except ImportError:  # pragma: no cover - lxml is a core dependency
        pass
    return tuple(errors)


def read_source(
    path: Path,
    corpus: str,
    formats: Sequence[SourceFormat],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    **opts: object,
) -> ParsedDocument:
    """Parse a source file with the parser ``formats`` (its pack's) gives its suffix; bad input raises
    SourceParseError."""
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    path = Path(path)
    fmt = _format(path, formats)
    check_file(path, fmt.content, max_bytes)
    module, function = fmt.parser.split(":")
    parser = _load_parser(path, module, function)
    try:
        return parser(path, corpus, **opts)
    except SourceParseError:
        raise
    except _syntax_errors() as e:
        raise SourceParseError(path, f"malformed {path.suffix.lstrip('.').upper()}: {_one_line(e)}") from e
    except (RecursionError, MemoryError) as e:
        raise SourceParseError(path, f"too large or too deeply nested to parse ({type(e).__name__})") from e


def _format(path: Path, formats: Sequence[SourceFormat]) -> SourceFormat:
    suffix = path.suffix.lower()
    for fmt in formats:
        if fmt.suffix == suffix:
            return fmt
    supported = ", ".join(sorted({f.suffix for f in formats}))
    raise SourceParseError(
        path, f"unsupported format {path.suffix or '(no extension)'!r}; supported: {supported}"
    )


def _load_parser(path: Path, module: str, function: str) -> SourceParser:
    try:
        return getattr(importlib.import_module(module), function)
    except (ImportError, AttributeError) as e:
        raise SourceParseError(
            path, f"no parser available for {path.suffix} ({module}.{function}: {e})"
        ) from e


def check_file(path: Path, kind: str, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    """Refuse missing, empty, oversized, non-UTF-8 or mislabelled files without reading them whole."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise SourceParseError(path, f"cannot read file: {e.strerror}") from e
    if not path.is_file():
        raise SourceParseError(path, "not a regular file")
    if size == 0:
        raise SourceParseError(path, "empty file")
    if size > max_bytes:
        raise SourceParseError(
            path, f"file is {_mb(size)}, over the limit of {_mb(max_bytes)}; raise max_bytes to read it"
        )
    if kind == "pdf":
        with path.open("rb") as f:
            if b"%PDF-" not in f.read(1024):
                raise SourceParseError(path, "not a PDF (no %PDF- header in the first 1024 bytes)")
        return
    first = check_utf8(path)
    if first is None:
        raise SourceParseError(path, "empty file (whitespace only)")
    if kind == "text":
        return
    expected = "{[" if kind == "json" else "<"
    if first not in expected:
        raise SourceParseError(
            path, f"does not look like {kind.upper()}: starts with {first!r}, expected one of {expected!r}"
        )


def check_utf8(path: Path, chunk: int = CHUNK) -> str | None:
    """Stream the file through a UTF-8 decoder; return its first non-whitespace character (None if blank)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    first: str | None = None
    offset = 0
    with path.open("rb") as f:
        while True:
            data = f.read(chunk)
            pending = len(decoder.getstate()[0])
            try:
                text = decoder.decode(data, final=not data)
            except UnicodeDecodeError as e:
                raise SourceParseError(path, f"not valid UTF-8 at byte {offset - pending + e.start}") from e
            if first is None and (stripped := text.lstrip().lstrip("\ufeff").lstrip()):
                first = stripped[0]
            if not data:
                return first
            offset += len(data)


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:200]
