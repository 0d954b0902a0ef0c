"""A very long question read as its channels can use it: the embedding model reads about 256 word pieces
(some 1,200 characters) of a text, and every phrase of a question is parsed, encoded and matched, so a
question past `READ_MOST` characters is read as its asking sentences (those ending "?", and the last) and as
many of its first sentences as fit, in their order; the answer's note says so. Shorter questions are read
whole."""

from __future__ import annotations

import re

READ_MOST = 1200
"""Characters of a question the channels read."""


def condensed(question: str, most: int = READ_MOST) -> tuple[str, str | None]:
    """(the text the channels read, the note the answer carries, or None when the question is read whole)."""
    if len(question) <= most:
        return question, None
    sentences = [s.strip() for s in re.split(r"(?<=[.?!])\s+|\n+", question) if s.strip()]
    keep = {i for i, s in enumerate(sentences) if s.endswith("?")} | {len(sentences) - 1}
    size = sum(len(sentences[i]) + 1 for i in keep)
    for i, s in enumerate(sentences):
        if i not in keep and size + len(s) + 1 <= most:
            keep.add(i)
            size += len(s) + 1
    text = " ".join(sentences[i] for i in sorted(keep))[: max(most, 1)]
    note = (
        f"your question has {len(question):,} characters: it was read as its questions and first sentences "
        f"({len(text):,} characters), what the search can use"
    )
    return text, note
