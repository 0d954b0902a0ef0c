"""Answers over several corpora of a home (`ask --corpus a,b` or ``all``), scored as the user reads them: each
citation qualified by its corpus against the gold qualified by the question's corpus (its ``corpus`` field, or
``--default-corpus``), so a recordkeeping answer padded with construction rules loses precision. The same
questions are also answered from their own corpus alone, in the same run, for the comparison.

Run by (it answers through the facade, a layer above this one):

    HF_HUB_OFFLINE=1 python -m benchmarks.corpora_answers --home .bifrost-demo --corpora all \\
        -q eval/questions/osha-next-door.jsonl -q eval/questions/osha-natural-dev.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bifrost.eval.metrics import set_prf


def qualified(answer, default: str) -> list[str]:
    """An answer's citations as ``corpus:id`` (a shortlist's: what it quotes; refused or not stated: none)."""
    if answer.refused or answer.outcome.value not in ("answered", "shortlist"):
        return []
    return list(dict.fromkeys(f"{c.corpus or default}:{c.id}" for c in answer.citations))


def score(rows: Sequence[tuple[list[str], list[str]]]) -> dict[str, float]:
    m = [set_prf(c, g) for c, g in rows]
    return {
        "n": len(rows),
        "precision": float(np.mean([x.precision for x in m])) if m else 0.0,
        "recall": float(np.mean([x.recall for x in m])) if m else 0.0,
        "f1": float(np.mean([x.f1 for x in m])) if m else 0.0,
        "answered": float(np.mean([bool(c) for c, _ in rows])) if rows else 0.0,
    }
