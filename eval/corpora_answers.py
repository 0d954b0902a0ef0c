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
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bifrost.eval.metrics import lead_in_gold_section, set_prf


def qualified(answer, default: str) -> list[str]:
    """An answer's citations as ``corpus:id`` (a shortlist's: what it quotes; refused or not stated: none)."""
    if answer.refused or answer.outcome.value not in ("answered", "shortlist"):
        return []
    return list(dict.fromkeys(f"{c.corpus or default}:{c.id}" for c in answer.citations))


def qualified_section(section_of) -> Callable[[str], str]:
    """The section of a ``corpus:id`` key, qualified by its corpus; ``section_of(corpus, id)``."""

    def section(key: str) -> str:
        corpus, _, pid = key.partition(":")
        return f"{corpus}:{section_of(corpus, pid)}"

    return section


def score(rows: Sequence[tuple[list[str], list[str]]], section_of=None) -> dict[str, float]:
    """Citation P/R/F1, the share answered, the first citation from the gold's corpus and (with
    ``section_of``) in a gold section."""
    m = [set_prf(c, g) for c, g in rows]
    lead = [bool(c) and c[0].partition(":")[0] == g[0].partition(":")[0] for c, g in rows]
    return {
        "lead_corpus": float(np.mean(lead)) if rows else 0.0,
        **(
            {
                "lead_section": float(
                    np.mean([lead_in_gold_section(c, g, qualified_section(section_of)) for c, g in rows])
                )
            }
            if section_of is not None and rows
            else {}
        ),
        "n": len(rows),
        "precision": float(np.mean([x.precision for x in m])) if m else 0.0,
        "recall": float(np.mean([x.recall for x in m])) if m else 0.0,
        "f1": float(np.mean([x.f1 for x in m])) if m else 0.0,
        "answered": float(np.mean([bool(c) for c, _ in rows])) if rows else 0.0,
    }
