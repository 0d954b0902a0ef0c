"""Refusals that point, scored: for questions the corpus does not answer that are labelled with the rules
that do (a tag ``other-part:<part>``, written before the pointers were built), how many are refused or "not
stated", and of those how many name that part (a place cited as ``<title> CFR <part>.`` or the part itself);
each question answered as `ask` answers it, its own precedent left out.

Run by (it answers through the facade, a layer above this one):

    HF_HUB_OFFLINE=1 python -m benchmarks.refusal_pointers --home .bifrost-demo \\
        -q eval/questions/osha-near-domain.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path


def labelled_part(tags: Sequence[str]) -> str | None:
    """The part an ``other-part:<part>`` tag names (its number), else None."""
    for t in tags:
        if t.startswith("other-part:"):
            return t.split(":", 1)[1]
    return None


def names_part(places: Sequence[str], part: str) -> bool:
    """Whether one of the places a refusal names is in ``part`` ("29 CFR 1904.39" is in 1904)."""
    return any(re.search(rf"(?:^|\s){re.escape(part)}(?:[.\s(]|$)", p) for p in places)
