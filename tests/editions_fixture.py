"""Make edition B of a rulebook (section-list JSON, the shape of the shared Part 1926) from edition A.

Amendments of the kinds that really happen, each a small pure function over the section list:
a section removed and reserved, a paragraph inserted with the later ones renumbered, text
changed, a cross-reference added and one removed, a definition changed, a new paragraph at the
end of a section. Plans for the mini fixture and for Part 1926 are below; both are data.

    python -m tests.editions_fixture ../shared/corpora/osha-1926/part-1926.json /tmp/part-1926-B.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

Section = dict  # {"source", "title", "section", "content", "path"}

_TOP = re.compile(r"^\(([a-h])\)", re.M)


def _find(sections: list[Section], sid: str) -> Section:
    for s in sections:
        if s["section"] == sid:
            return s
    raise KeyError(f"no section {sid} in edition A")


def reserve(sections: list[Section], sid: str) -> None:
    """Remove a section's rules and mark it reserved (its number stays, its paragraphs go)."""
    s = _find(sections, sid)
    s["title"], s["content"] = f"§ {sid} [Reserved]", ""


def replace(sections: list[Section], sid: str, old: str, new: str) -> None:
    """Change text inside one section (fails loudly when the old text is not there)."""
    s = _find(sections, sid)
    if old not in s["content"]:
        raise KeyError(f"{sid}: text to amend not found: {old!r}")
    s["content"] = s["content"].replace(old, new)


def insert_paragraph(sections: list[Section], sid: str, label: str, text: str) -> None:
    """Insert a top-level paragraph ``(label)`` and renumber the later top-level paragraphs."""
    s = _find(sections, sid)
    lines = s["content"].split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"({label})"))
    shifted = [
        _TOP.sub(lambda m: f"({chr(ord(m.group(1)) + 1)})", line) if i >= at else line
        for i, line in enumerate(lines)
    ]
    s["content"] = "\n".join(shifted[:at] + [f"({label}) {text}"] + shifted[at:])


def append_paragraph(sections: list[Section], sid: str, text: str) -> None:
    """Add a new paragraph at the end of a section's rules (before its source note, if any)."""
    s = _find(sections, sid)
    lines = s["content"].split("\n")
    at = len(lines) - 1 if lines and lines[-1].startswith("[") else len(lines)
    s["content"] = "\n".join(lines[:at] + [text] + lines[at:])


MINI_PLAN = [
    (reserve, "1926.502"),
    (insert_paragraph, "1926.500", "b", "Application. This subpart applies to all construction workplaces."),
    (
        replace,
        "1926.501",
        "Each employee shall be protected from falling.",
        "Each employee shall be protected from falling by guardrail systems or safety net systems.",
    ),
    (
        replace,
        "1926.501",
        "(ii) Each employee on a walking/working surface shall be protected.",
        "(ii) Each employee on a walking/working surface shall be protected as described in § 1926.500(a).",
    ),
    (
        replace,
        "1926.501",
        "fall protection plan which complies with § 1926.502(b) for",
        "fall protection plan for",
    ),
    (
        replace,
        "1926.500",
        "Leading edge means the edge of a floor, roof, or formwork for a floor.",
        "Leading edge means the unprotected edge of a floor, roof, deck, or formwork for a floor.",
    ),
    (
        append_paragraph,
        "1926.501",
        "(c) Training. Each employee shall be trained as described in § 1926.500(a)(1).",
    ),
]

OSHA_1926_PLAN = [
    (reserve, "1926.105"),
    (
        insert_paragraph,
        "1926.106",
        "b",
        "Employees shall be trained in water rescue before working over water.",
    ),
    (replace, "1926.1051", "19 inches (48 cm)", "24 inches (61 cm)"),
    (
        replace,
        "1926.106",
        "buoyant work vests.",
        "buoyant work vests. Safety nets used over water shall meet § 1926.502(c).",
    ),
    (
        replace,
        "1926.501",
        "complies with § 1926.502(k) for",
        "complies with the fall protection plan requirements for",
    ),
    (
        replace,
        "1926.500",
        "Leading edge means the edge of a floor, roof, or formwork for a floor",
        "Leading edge means the unprotected edge of a floor, roof, deck, or formwork for a floor",
    ),
    (
        append_paragraph,
        "1926.21",
        "(c) Records. The employer shall keep a record of the training given under paragraph (b) of this "
        "section.",
    ),
]


def make_edition_b(sections: list[Section], plan: list[tuple]) -> list[Section]:
    """A new section list: edition A with every amendment of the plan applied, in order."""
    out = json.loads(json.dumps(sections))
    for step, *args in plan:
        step(out, *args)
    return out


def main(argv: list[str]) -> None:
    src, dst = Path(argv[0]), Path(argv[1])
    sections = json.loads(src.read_text(encoding="utf-8"))
    plan = OSHA_1926_PLAN if any(s["section"] == "1926.1051" for s in sections) else MINI_PLAN
    dst.write_text(json.dumps(make_edition_b(sections, plan), indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
