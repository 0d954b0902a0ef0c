"""Parse eCFR text as JSON (one object per section: source, title, section, content, path).

This is the shape of the shared Part 1926 corpus: each ``content`` line is one eCFR paragraph.
Emits part, subpart and section nodes and everything below them (via ``split_section``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ParsedDocument, Provision, ProvisionKind, SourceDocument
from bifrost.graph_builders.jurisdictions.us_cfr.sources.paragraphs import Line, split_section
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_structure import PartStructure, load_structure

URL_BASE = "https://www.ecfr.gov/current/title-29"
# ASCII digits only
_TITLE = re.compile(
    r"^§§?\s*(?P<id>[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9])(?:\s*-\s*[1-9][0-9]{0,3}\.[1-9][0-9]{0,3}(?![0-9]))?)\s*(?P<heading>.*)$",
    re.S,
)
_PART = re.compile(r"^PART (?P<part>[1-9][0-9]{0,3})\s*[—-]\s*(?P<heading>.+)$", re.S)
_SUBPART = re.compile(r"^Subpart (?P<letter>[A-Z]{1,2})\s*[—-]\s*(?P<heading>.+)$", re.S)
_REQUIRED = ("section", "title", "content")


@dataclass(frozen=True)
class _Section:
    """One section object, checked: where it sits and its text lines."""

    part: str
    section_id: str
    heading: str
    lines: tuple[Line, ...]
    part_heading: str | None
    subpart: tuple[str, str] | None


def _read(path: Path) -> list[Any]:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise SourceParseError(path, f"cannot read file: {e.strerror or e}") from e
    if not raw.strip():
        raise SourceParseError(path, "file is empty (expected a JSON array of eCFR section objects)")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise SourceParseError(path, f"not UTF-8 text (byte {e.start}); save the file as UTF-8") from e
    except json.JSONDecodeError as e:
        raise SourceParseError(path, f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from e
    except RecursionError as e:
        raise SourceParseError(path, "JSON nested too deeply to read") from e
    if not isinstance(data, list):
        raise SourceParseError(path, f"expected a JSON array of section objects, found {type(data).__name__}")
    return data


def _section(i: int, item: Any) -> _Section | str:
    """The checked section, or the reason it is skipped."""
    if not isinstance(item, Mapping):
        return f"item {i}: expected an object, found {type(item).__name__}; skipped"
    missing = [k for k in _REQUIRED if not isinstance(item.get(k), str)]
    if missing:
        return f"item {i}: missing or non-string field(s) {', '.join(missing)}; skipped"
    sid = item["section"].strip()
    m = _TITLE.match(item["title"].strip())
    if not m:
        return (
            f"{sid or f'item {i}'}: title {item['title'][:60]!r} does not start with '§ <section>'; skipped"
        )
    if re.sub(r"\s", "", m.group("id")) != sid:
        return f"{sid}: title names § {m.group('id')}, not the section field; skipped"
    crumbs = [
        c.strip() for c in re.split(r"\s*>\s*", str(item.get("path") or "").replace("\n", " ")) if c.strip()
    ]
    part = next((pm for c in crumbs if (pm := _PART.match(c))), None)
    sub = next((sm for c in crumbs if (sm := _SUBPART.match(c))), None)
    lines = tuple(Line(t) for t in item["content"].split("\n") if t.strip())
    return _Section(
        part=sid.split(".")[0],
        section_id=sid,
        heading=m.group("heading").strip(),
        lines=lines,
        part_heading=part.group("heading").strip() if part else None,
        subpart=(sub.group("letter"), sub.group("heading").strip()) if sub else None,
    )


def _node(
    corpus: str,
    pid: str,
    parent: str | None,
    kind: ProvisionKind,
    heading: str,
    level: int,
    order: int,
    url: str,
    doc: str,
    reserved: bool = False,
) -> Provision:
    return Provision(
        corpus=corpus,
        id=pid,
        parent_id=parent,
        kind=kind,
        heading=heading,
        level=level,
        order=order,
        url=url,
        document=doc,
        reserved=reserved,
    )


def _containers(
    sec,
    ps: PartStructure | None,
    corpus: str,
    provisions: list[Provision],
    oddities: list[str],
    seen: set[str],
    document: str,
) -> str:
    """The part and subpart nodes a section goes under (appended the first time each is met); the id of its
    parent: the subpart, or the part when neither its path nor the structure file names one."""
    if sec.part not in seen:
        seen.add(sec.part)
        heading = (ps.heading if ps else None) or sec.part_heading or ""
        provisions.append(
            _node(
                corpus,
                sec.part,
                None,
                ProvisionKind.PART,
                heading,
                0,
                len(provisions),
                f"{URL_BASE}/part-{sec.part}",
                document,
            )
        )
    letter, sub_heading = sec.subpart or (None, "")
    if letter is None and ps is not None:
        letter = ps.section_to_subpart.get(sec.section_id) or ps.section_to_subpart.get(
            sec.section_id.split("-")[0]
        )
    if ps is not None and letter and (info := ps.subpart(letter)):
        sub_heading = info.heading or sub_heading
    parent = sec.part
    if letter:
        parent = f"{sec.part} Subpart {letter}"
        if parent not in seen:
            seen.add(parent)
            url = f"{URL_BASE}/part-{sec.part}/subpart-{letter}"
            provisions.append(
                _node(
                    corpus,
                    parent,
                    sec.part,
                    ProvisionKind.SUBPART,
                    sub_heading,
                    1,
                    len(provisions),
                    url,
                    document,
                )
            )
    else:
        oddities.append(
            f"{sec.section_id}: no subpart in its path or the structure file; placed under the part"
        )
    return parent


def parse_ecfr_json(
    path: Path,
    corpus: str = "osha-1926",
    parts: Collection[str] | None | str = "spec",
    structure_path: Path | None = None,
    **_other_formats: object,
) -> ParsedDocument:
    """Parse an eCFR JSON file into provisions of the given parts (None: every part in the file; "spec": the
    parts the corpus's spec names, every part for a corpus the pack does not list).

    Unreadable, empty, malformed or wrongly shaped files raise SourceParseError; a bad section
    object is reported in ``oddities`` and skipped.
    """
    path = Path(path)
    if parts == "spec":
        from bifrost.graph_builders.jurisdictions.us_cfr.corpora import parts_of

        parts = parts_of(corpus)
    items = _read(path)
    structure: dict[str, PartStructure] = load_structure(structure_path) if structure_path else {}
    oddities: list[str] = []
    provisions: list[Provision] = []
    seen: set[str] = set()  # the part and subpart nodes already added
    for i, item in enumerate(items):
        sec = _section(i, item)
        if isinstance(sec, str):
            oddities.append(sec)
            continue
        if parts is not None and sec.part not in parts:
            continue
        parent = _containers(sec, structure.get(sec.part), corpus, provisions, oddities, seen, path.name)
        if not sec.lines and "[Reserved]" not in sec.heading:
            oddities.append(f"{sec.section_id}: section has no text")
        provs, odd = split_section(
            corpus,
            sec.section_id,
            sec.heading,
            sec.lines,
            parent_id=parent,
            order_start=len(provisions),
            url_base=URL_BASE,
            document=path.name,
        )
        if "-" in sec.section_id:
            provs[0] = provs[0].model_copy(update={"url": None})  # eCFR has no page for a reserved range
        provisions += provs
        oddities += odd
    if not provisions:
        wanted = ", ".join(sorted(parts)) if parts is not None else "any part"
        raise SourceParseError(path, f"no section objects of part(s) {wanted} found")
    document = SourceDocument(
        corpus=corpus,
        name=path.name,
        format="ecfr-json",
        checksum=hashlib.sha256(path.read_bytes()).hexdigest()[:16],
    )
    return ParsedDocument(document=document, provisions=tuple(provisions), oddities=tuple(oddities))
