"""The one sentence splitter of every module that quotes, reads or cites a provision's sentences.

A sentence ends at ``.``, ``:``, ``!`` or ``?`` before a capital, a parenthesis, a quote or ``§``; a
semicolon always ends a clause (the items of a list: "(i) ...; (ii) ...; or"). Table rows stay with their
sentence. Compose, extractive answers, the plan's citing sentence, the reader and the answerability
features all split alike, so that what one module quotes another can find.
"""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"(?<=[.:!?])\s+(?=[A-Z(“\"§])|(?<=;)\s+")
LABEL_CHARS = 30
"""A fragment this short that ends with a colon labels the sentence after it ("Exception:", "Note:")."""


def sentences(text: str) -> list[str]:
    """The sentences (and semicolon clauses) of ``text``, stripped, none empty."""
    return [s for s in (p.strip() for p in _SENTENCE.split(text or "")) if s]


def citing_sentence(text: str, raw: str) -> str:
    """The sentence of ``text`` that holds the citation ``raw``, with the label that introduces it
    ("Exception: ..."); "" when it is not found."""
    parts = sentences(text)
    for n, sentence in enumerate(parts):
        if raw and raw in sentence:
            label = (
                parts[n - 1] if n and len(parts[n - 1]) <= LABEL_CHARS and parts[n - 1].endswith(":") else ""
            )
            return f"{label} {sentence}".strip()
    return ""
