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
from bifrost.graph_builders.entities.normalize import singularize


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
    """Each word in the singular the refiner gives a name's head (`normalize.singularize`: "criteria" ->
    "criterion", "systems" -> "system"), so a name is checked against its text by the same normalizer on both
    sides: the name as stored after refining, the text as written."""
    return [singularize(w) for w in re.findall(r"[a-z0-9]+", text.lower())]


def names_text(name: str, text: str) -> bool:
    """Whether every word of an entity's name is a word of its provision's text (singular or plural alike)."""
    words = _words(name)
    return bool(words) and set(words) <= set(_words(text))
