"""A statute as one JSON object, a key per section ("SEC. 5. Duties", "Preamble") and its text as the value:
lines that are a subdivision label alone ("(a)", "(1)", "(A)", "(i)") open that subdivision, the lines after
it are its text, and the reading aids of the page it was copied from ("More...") are dropped. Subdivisions
nest as the US Code writes them: subsection (a), paragraph (1), subparagraph (A), clause (i); a subdivision is
placed under the nearest open one of a higher kind (the definitions section opens with paragraphs)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from bifrost.core.errors import SourceParseError
from bifrost.core.types import ParsedDocument, Provision, ProvisionKind, SourceDocument
from bifrost.graph_builders.jurisdictions.us_statute.citation import PREAMBLE, ROMAN

_SECTION = re.compile(r"^SEC\.\s*(\d+)\.\s*(.*)$", re.I)
_LABEL = re.compile(r"^\(([0-9A-Za-z]{1,5})\)$")
_AIDS = frozenset({"More...", "More…"})
RANK = {"letter": 1, "digit": 2, "upper": 3, "roman": 4}


def _kind(label: str, open_kinds: list[str], previous_letter: str | None) -> str:
    """The kind of a subdivision label: a roman numeral when it follows a subparagraph, or cannot be the next
    letter; else by its characters."""
    if label.isdigit():
        return "digit"
    if label.lower() in ROMAN and label.islower():
        next_letter = chr(ord(previous_letter) + 1) if previous_letter else "a"
        if "upper" in open_kinds or label != next_letter:
            return "roman"
    return "upper" if label.isupper() else "letter"


def _section_provisions(
    corpus: str, root: str, sec: str, heading: str, text: str, order: int
) -> list[Provision]:
    """The section and its subdivisions, in document order."""
    out = [
        Provision(corpus=corpus, id=sec, parent_id=root, kind=ProvisionKind.SECTION, heading=heading, level=1)
    ]
    texts: dict[str, list[str]] = {sec: []}
    stack: list[tuple[str, str]] = []  # (kind, id) of the open subdivisions
    previous_letter: str | None = None
    current = sec
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line in _AIDS:
            continue
        m = _LABEL.match(line) if sec != PREAMBLE else None
        if m is None:
            texts[current].append(line)
            continue
        label = m.group(1)
        kind = _kind(label, [k for k, _ in stack], previous_letter)
        if kind == "letter":
            previous_letter = label
        while stack and RANK[stack[-1][0]] >= RANK[kind]:
            stack.pop()
        parent = stack[-1][1] if stack else sec
        current = f"{parent}({label})"
        stack.append((kind, current))
        texts[current] = []
        out.append(
            Provision(
                corpus=corpus,
                id=current,
                parent_id=parent,
                kind=ProvisionKind.PARAGRAPH,
                level=1 + len(stack),
            )
        )
    return [
        p.model_copy(update={"text": " ".join(texts[p.id]), "order": order + n}) for n, p in enumerate(out)
    ]


def parse_statute_json(path: Path, corpus: str, /, **_other_formats: object) -> ParsedDocument:
    """One statute: the act as the part, each "SEC. n" (and the preamble) a section, its subdivisions
    paragraphs. A key that is neither is reported in ``oddities`` and skipped."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SourceParseError(path, f"not a JSON object of sections: {e}") from e
    if not isinstance(data, dict) or not data:
        raise SourceParseError(path, 'expected a JSON object, a key per section ("SEC. 5. Duties": text)')
    root = "OSH Act" if corpus == "osh-act" else path.stem
    out = [Provision(corpus=corpus, id=root, kind=ProvisionKind.PART, heading=root, level=0, order=0)]
    oddities: list[str] = []
    for key, value in data.items():
        if not isinstance(value, str):
            oddities.append(f"{key!r}: its value is not text; skipped")
            continue
        if key.strip().lower() == PREAMBLE.lower():
            sec, heading = PREAMBLE, PREAMBLE
        elif m := _SECTION.match(key.strip()):
            sec, heading = m.group(1), m.group(2).strip().rstrip(".")
        else:
            oddities.append(f'{key!r}: not "SEC. <n>. <title>" nor the preamble; skipped')
            continue
        out += _section_provisions(corpus, root, sec, heading, value, len(out))
    if len(out) == 1:
        raise SourceParseError(path, 'no "SEC. <n>. <title>" key found')
    checksum = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    document = SourceDocument(corpus=corpus, name=path.name, format="statute-json", checksum=checksum)
    return ParsedDocument(document=document, provisions=tuple(out), oddities=tuple(oddities))
