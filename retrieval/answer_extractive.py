"""Extractive answers (no chat model): the question's best sentence from each cited provision.

Every statement is a sentence of the regulation itself, cited and quoted (the sentence is its
own supporting span, checked by `retrieval.quotes` like an LLM's quote); a provision without
text (a heading only) has nothing to quote and is not stated. The answer refuses when the
evidence (the best entity match of the question) is below a calibrated threshold.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from bifrost.core.embeddings import Embedder
from bifrost.core.types import Provision, RetrievedItem, Statement
from retrieval.quotes import DraftStatement, QuoteClaim, check_statements

SENTENCE_END = re.compile(r"(?<=[.;:])\s+(?=[A-Z(])")


def sentences(text: str) -> list[str]:
    """Split provision text into sentences; short texts stay whole."""
    parts = [s.strip() for s in SENTENCE_END.split(text or "") if s.strip()]
    return parts or ([text.strip()] if text and text.strip() else [])


def best_sentence(question_vec: np.ndarray, p: Provision, embedder: Embedder) -> str:
    """The sentence of a provision's text closest to the question ("" when it has no text)."""
    cands = sentences(p.text)
    if not cands:
        return ""
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
    """One cited statement per cited provision with text, in rank order, quoting its sentence;
    duplicates dropped."""
    qv = embedder.embed([question])[0]
    drafts: list[DraftStatement] = []
    seen: set[str] = set()
    for it in cited:
        p = lookup(it.id)
        if p is None:
            continue
        text = best_sentence(qv, p, embedder)
        if not text or text in seen:
            continue
        seen.add(text)
        drafts.append(DraftStatement(text=text, citations=(p.id,), claims=(QuoteClaim(p.id, text),)))
    return check_statements(drafts, lookup).statements


def render(statements: Sequence[Statement]) -> str:
    """Statements as text, each followed by its citation marks."""
    return "\n".join(f"{s.text} " + "".join(f"[{c}]" for c in s.citations) for s in statements)
