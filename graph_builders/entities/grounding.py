"""The names of extracted entities: one per key (case and spacing aside), and kept only when grounded in
their provision (every word of the name is a word of its text).

A real chat model names things that are not there (the provision's own id, an id from the prompt's
examples, a paraphrase); the entity network keeps only names a reader can find in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bifrost.core.structured import EntityOut
from bifrost.core.types import ExtractedEntity


def entity_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def unique_entities(items: Iterable[EntityOut]) -> list[ExtractedEntity]:
    """The entities of a reply, the first of each key, names with their spacing normalized."""
    out: dict[str, ExtractedEntity] = {}
    for e in items:
        name = " ".join(e.name.split())
        if name:
            out.setdefault(
                entity_key(name), ExtractedEntity(name=name, label=e.label, definition=e.definition)
            )
    return list(out.values())


def _words(text: str) -> list[str]:
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", text.lower())]


def names_text(name: str, text: str) -> bool:
    """Whether every word of an entity's name is a word of its provision's text (a plural s aside)."""
    words = _words(name)
    return bool(words) and set(words) <= set(_words(text))
