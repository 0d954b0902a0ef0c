"""Provision ids recovered from a Cypher QA chain's answer and query results.

An id counts when it exists in the corpus: a Document id (``corpus:provision id``), a bare provision
id, or a printed citation the corpus's grammar normalizes (`1926.502(k)`, `§ 1926.502 (k)`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import Any

from bifrost.core.errors import CitationError
from bifrost.eval.baselines.llm_only import CFR_ID

_TOKEN = re.compile(r"[^\s'\",;{}\[\]]+")


def ids_in_text(
    text: str, corpus: str, known: Collection[str], normalize: Callable[[str], str] | None
) -> list[str]:
    """Provision ids in a text, by position: Document ids of this corpus, exact provision ids, and
    citations normalized by the corpus's grammar (None: ids are matched exactly); only ids in `known`."""
    hits: list[tuple[int, str]] = []
    cited_spans: list[tuple[int, int]] = []  # a citation's reading wins over the tokens inside it
    if normalize is not None:
        for m in CFR_ID.finditer(text):
            try:
                pid = normalize(m.group(0))
            except CitationError:
                continue
            cited_spans.append(m.span())
            if pid in known:
                hits.append((m.start(), pid))
    prefix = corpus + ":"
    for m in _TOKEN.finditer(text):
        if any(a <= m.start() and m.end() <= b for a, b in cited_spans):
            continue
        tok = _trim(m.group(0))
        pid = tok[len(prefix) :] if tok.startswith(prefix) else tok
        if pid in known:
            hits.append((m.start(), pid))
    return list(dict.fromkeys(pid for _, pid in sorted(hits, key=lambda h: h[0])))


def _trim(tok: str) -> str:
    """A token without trailing punctuation or unbalanced brackets: `(1926.502(k)).` -> `1926.502(k)`."""
    tok = tok.rstrip(".:!?")
    while tok.endswith(")") and tok.count(")") > tok.count("("):
        tok = tok[:-1]
    while tok.startswith("(") and tok.count("(") > tok.count(")"):
        tok = tok[1:]
    return tok


def strings_in(value: Any) -> Iterable[str]:
    """Every string in a Cypher result, in order; a node's ``id``/``provision_id`` before its other
    properties."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        keys = sorted(value, key=lambda k: k not in ("id", "provision_id"))
        for k in keys:
            yield from strings_in(value[k])
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings_in(v)
    elif value is not None and not isinstance(value, (int, float, bool)):
        yield str(value)
