"""Pure parts of the cost-curve benchmark (`scale_bench.py`): multiplied corpora, slopes, the table.

A corpus of size ``s`` (in units of Part 1926, 10,111 provisions) is copy 0, Part 1926 as shipped,
then copies 1, 2, ... of it, the last one cut to the fraction left (sections in order, weighted by
their paragraph lines). Only the source's Part 1926 sections are used (the shared file also holds
sections of other Title 29 parts, which `bifrost ingest --corpus osha-1926` leaves out too). Copy k
is Part ``k+1`` followed by ``926`` (2926, 3926, ...; 4 digits, as the CFR grammar wants, and cited
nowhere in the text): every ``1926`` in section numbers, titles, paths and text becomes the copy's
part, so ids never collide and cross-references stay inside the copy (citations of other parts stay
as they are, dangling as in the original), and every non-empty line of text gets the part number
appended (`` 2926``: a number, so the offline extractor takes no entity from it),
so no copied section has the text of its original. That is why a copy cannot be cheaper than real
text: ids and content hashes differ (the extraction journal never matches) and every provision is
parsed and embedded. What a copy shares with real text is its vocabulary: entity names and relation
phrases repeat, so the name-vector cache serves them and the refiner merges them into existing
entities (a larger real rulebook would bring new names too; the entity counts per size show it).
Paragraphs that are a bare heading (``(a) Capacity.``) keep their words; their ids and parents differ.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

BASE_PART = "1926"
_BASE = re.compile(rf"\b{BASE_PART}\b")


def parts_for(size: float) -> list[tuple[str, float]]:
    """(part number, share of that copy) for a corpus of ``size`` times Part 1926."""
    if not (0 < size <= 9):
        raise ValueError(f"--sizes: each size must be in (0, 9] (copies are parts 1926 to 9926), got {size}")
    whole, frac = int(size), round(size - int(size), 6)
    shares = [1.0] * whole + ([frac] if frac > 0 else [])
    return [(f"{k + 1}{BASE_PART[1:]}", share) for k, share in enumerate(shares)]


def renumber(text: str, part: str) -> str:
    """``text`` with Part 1926 cited as ``part`` (whole numbers only: 19260 or 41926 stay)."""
    return text if part == BASE_PART else _BASE.sub(part, text)


def _tag_lines(content: str, part: str) -> str:
    return "\n".join(f"{line} {part}" if line.strip() else line for line in content.split("\n"))


def copy_section(section: Mapping[str, Any], part: str) -> dict[str, Any]:
    """One section object of the source JSON as it reads in copy ``part`` (unchanged for 1926)."""
    if part == BASE_PART:
        return dict(section)
    out = {k: renumber(v, part) if isinstance(v, str) else v for k, v in section.items()}
    out["content"] = _tag_lines(out.get("content", ""), part)
    return out


def section_weight(section: Mapping[str, Any]) -> int:
    """About how many provisions a section makes: itself plus one per non-empty line."""
    return 1 + sum(1 for line in str(section.get("content", "")).split("\n") if line.strip())


def leading_share(sections: Sequence[Mapping[str, Any]], share: float) -> list[Mapping[str, Any]]:
    """The first sections, in order, holding ``share`` of the weight (at least one section)."""
    if share >= 1.0:
        return list(sections)
    target, total, out = share * sum(section_weight(s) for s in sections), 0, []
    for s in sections:
        if out and total >= target:
            break
        out.append(s)
        total += section_weight(s)
    return out


def multiply(sections: Sequence[Mapping[str, Any]], size: float) -> list[dict[str, Any]]:
    """The section objects of a corpus of ``size`` times Part 1926 (see the module docstring)."""
    own = [s for s in sections if str(s.get("section", "")).split(".")[0] == BASE_PART]
    return [copy_section(s, part) for part, share in parts_for(size) for s in leading_share(own, share)]


def multiply_structure(tree: Mapping[str, Any], size: float) -> dict[str, Any]:
    """An eCFR structure tree holding Part 1926's node once per copy, renumbered (subpart headings
    and section membership for sections whose path does not name their subpart)."""
    stack, base = [tree], None
    while stack and base is None:
        node = stack.pop()
        if node.get("type") == "part" and str(node.get("identifier")) == BASE_PART:
            base = node
        stack.extend(c for c in node.get("children") or () if isinstance(c, Mapping))
    if base is None:
        raise ValueError(f"the structure file has no part {BASE_PART}")
    text = json.dumps(base)
    parts = [json.loads(renumber(text, part)) for part, _ in parts_for(size)]
    return {**{k: copy.deepcopy(v) for k, v in tree.items() if k != "children"}, "children": parts}


def slope(n1: float, n2: float, y1: float, y2: float) -> float | None:
    """Log-log slope of a cost between two corpus sizes (1.0: linear, 0: flat); None if undefined."""
    if min(n1, n2, y1, y2) <= 0 or n1 == n2:
        return None
    return round(math.log(y2 / y1) / math.log(n2 / n1), 2)


def slopes(
    rows: Sequence[Mapping[str, Any]], keys: Sequence[str], size_key: str = "provisions"
) -> list[dict[str, Any]]:
    """Slopes of each cost in ``keys`` between consecutive rows (sorted by ``size_key``)."""
    rows = sorted(rows, key=lambda r: r[size_key])
    out = []
    for a, b in zip(rows, rows[1:]):
        out.append(
            {
                "from": a["size"],
                "to": b["size"],
                **{k: slope(a[size_key], b[size_key], a.get(k) or 0, b.get(k) or 0) for k in keys},
            }
        )
    return out


COLUMNS = (
    ("size", "size"),
    ("provisions", "provisions"),
    ("ingest_s", "ingest s"),
    ("navigator_s", "navigator s"),
    ("entities_s", "entities s"),
    ("index_write_s", "index write s"),
    ("entities", "entities"),
    ("index_mb", "index files MB"),
    ("rss_after_load_mb", "RSS loaded MB"),
    ("p50_ms", "p50 ms"),
    ("p95_ms", "p95 ms"),
    ("rrf_p50_ms", "rrf p50 ms"),
    ("load_avg", "load avg start-end"),
)
SLOPE_KEYS = (
    "ingest_s",
    "navigator_s",
    "entities_s",
    "index_write_s",
    "index_mb",
    "rss_after_load_mb",
    "p50_ms",
    "p95_ms",
)


def markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The measured rows and the slopes between consecutive sizes as two markdown tables."""
    head = "| " + " | ".join(h for _, h in COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n"
    body = "".join("| " + " | ".join(_cell(r.get(k)) for k, _ in COLUMNS) + " |\n" for r in rows)
    sl = slopes(rows, SLOPE_KEYS)
    shead = "| from | to | " + " | ".join(SLOPE_KEYS) + " |\n|" + "---|" * (len(SLOPE_KEYS) + 2) + "\n"
    sbody = "".join(
        f"| {s['from']} | {s['to']} | " + " | ".join(_cell(s[k]) for k in SLOPE_KEYS) + " |\n" for s in sl
    )
    return head + body + ("\nLog-log slopes (1.0 = linear):\n\n" + shead + sbody if sl else "")


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, (list, tuple)):
        return "-".join(_cell(x) for x in v)
    return f"{v:,}" if isinstance(v, int) else str(v)
