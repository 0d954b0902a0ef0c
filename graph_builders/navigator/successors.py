"""Where renumbered rules went: a successor table per jurisdiction, kept as data
(each jurisdiction pack's ``successors.csv``: ``old,new,note``), so a question citing an old number is
answered from the rule's new place and says so."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Successor:
    """Where a renumbered or moved rule of a rulebook went (one row of its successor table)."""

    old: str
    new: str
    note: str = ""


def read_successors(lines: Iterable[str]) -> dict[str, Successor]:
    """A successor table from CSV lines ``old,new,note`` (a header line and ``#`` comments skipped)."""
    out: dict[str, Successor] = {}
    for row in csv.reader(line for line in lines if line.strip() and not line.lstrip().startswith("#")):
        if not row or row[0].strip().lower() == "old" or len(row) < 2:
            continue
        old, new = row[0].strip(), row[1].strip()
        if old and new:
            out[old] = Successor(old, new, row[2].strip() if len(row) > 2 else "")
    return out
