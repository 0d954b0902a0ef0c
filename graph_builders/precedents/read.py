"""Reading a precedent file (JSONL or CSV) into checked rows; a bad line is reported by file, line and
field and the rest is read."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from bifrost.core.errors import BifrostError

_DATE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?)?$")
_SPLIT = re.compile(r"\s*[;|]\s*")


@dataclass(frozen=True)
class PrecedentRowIn:
    """One precedent as its file gives it, before its citations are resolved."""

    id: str
    title: str
    question: str = ""
    date: str | None = None
    url: str | None = None
    issuer: str = ""
    cites: tuple[str, ...] = ()


@dataclass
class ReadPrecedents:
    """The rows read and one line per line that could not be."""

    rows: list[PrecedentRowIn] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _text(value: object, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str | int | float):
        raise ValueError(f"field {name!r} must be text")
    return str(value).strip()


def _cites(value: object) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        items = value.strip()
        if items.startswith("["):
            value = json.loads(items)
        else:
            return tuple(c for c in _SPLIT.split(items) if c)
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ValueError("field 'cites' must be a list of citations (or a ';'-separated text in CSV)")
    return tuple(dict.fromkeys(c.strip() for c in value if c.strip()))


def row_of(data: object) -> PrecedentRowIn:
    """A checked row, or ValueError naming the field that is wrong."""
    if not isinstance(data, dict):
        raise ValueError("a line must be a JSON object")
    pid = _text(data.get("id"), "id")
    if not pid:
        raise ValueError("field 'id' is missing")
    title, question = _text(data.get("title"), "title"), _text(data.get("question"), "question")
    if not title and not question:
        raise ValueError("field 'title' (or 'question') is missing")
    date = _text(data.get("date"), "date") or None
    if date is not None and not _DATE.match(date):
        raise ValueError(f"field 'date' is not YYYY-MM-DD: {date[:40]!r}")
    return PrecedentRowIn(
        id=pid,
        title=title or question[:200],
        question=question,
        date=date,
        url=_text(data.get("url"), "url") or None,
        issuer=_text(data.get("issuer"), "issuer"),
        cites=_cites(data.get("cites")),
    )


def read_precedent_file(path: Path) -> ReadPrecedents:
    """Rows of a ``.jsonl`` or ``.csv`` file (by its suffix); one error line per bad line, naming file, line
    and field. A later row with an id already read replaces it (the file's own edit)."""
    if not path.is_file():
        raise BifrostError(f"{path}: no such precedent file")
    suffix = path.suffix.lower()
    if suffix not in {".jsonl", ".csv"}:
        raise BifrostError(f"{path}: a precedent file is .jsonl or .csv, not {suffix or 'no suffix'}")
    out = ReadPrecedents()
    by_id: dict[str, PrecedentRowIn] = {}
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            lines = enumerate(csv.DictReader(fh), start=2) if suffix == ".csv" else enumerate(fh, start=1)
            for n, line in lines:
                try:
                    if isinstance(line, str):
                        if not line.strip():
                            continue
                        line = json.loads(line)
                    row = row_of(line)
                except (ValueError, json.JSONDecodeError) as e:
                    reason = f"not JSON ({e.msg})" if isinstance(e, json.JSONDecodeError) else str(e)
                    out.errors.append(f"{path.name}, line {n}: {reason}")
                    continue
                by_id[row.id] = row
    except UnicodeDecodeError as e:
        raise BifrostError(f"{path}: not UTF-8 text ({e.reason})") from e
    out.rows = list(by_id.values())
    return out
