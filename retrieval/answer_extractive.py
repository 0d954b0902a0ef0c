"""Extractive answers (no chat model): the question's best sentence from each cited provision.

Every statement is a sentence of the regulation itself, cited; the answer refuses when the
evidence (the best entity match of the question) is below a calibrated threshold.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from bifrost.core.embeddings import Embedder
from bifrost.core.types import Provision, RetrievedItem, Statement

SENTENCE_END = re.compile(r"(?<=[.;:])\s+(?=[A-Z(])")


def sentences(text: str) -> list[str]:
    """Split provision text into sentences; short texts stay whole."""
    parts = [s.strip() for s in SENTENCE_END.split(text or "") if s.strip()]
    return parts or ([text.strip()] if text and text.strip() else [])


def best_sentence(question_vec: np.ndarray, p: Provision, embedder: Embedder) -> str:
    """The sentence of a provision closest to the question (heading when it has no text)."""
    cands = sentences(p.text)
    if not cands:
        return p.heading.strip()
    if len(cands) == 1:
        return cands[0]
    sims = embedder.embed(cands) @ question_vec
    return cands[int(np.argmax(sims))]


def extractive_statements(
    question: str,
    cited: Sequence[RetrievedItem],
    lookup: Callable[[str], Provision | None],
    embedder: Embedder,
) -> list[Statement]:
    """One cited statement per cited provision, in rank order; duplicates dropped."""
    qv = embedder.embed([question])[0]
    out: list[Statement] = []
    seen: set[str] = set()
    for it in cited:
        p = lookup(it.id)
        if p is None:
            continue
        text = best_sentence(qv, p, embedder)
        if not text or text in seen:
            continue
        seen.add(text)
        out.append(Statement(text=text, citations=(it.id,)))
    return out


def render(statements: Sequence[Statement]) -> str:
    """Statements as text, each followed by its citation marks."""
    return "\n".join(f"{s.text} " + "".join(f"[{c}]" for c in s.citations) for s in statements)
