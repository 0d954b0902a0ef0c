"""The one rule for relation type names: strict snake_case, at most 64 characters.

Extractors normalize to it, stores check it (`check_relation`) before a name reaches a query.
"""

from __future__ import annotations

import re

from bifrost.core.errors import StoreError

RELATION_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
MAX_RELATION_LENGTH = 64


def is_valid_relation(relation: object) -> bool:
    """True for a non-empty lower snake_case name of at most `MAX_RELATION_LENGTH` characters."""
    return (
        isinstance(relation, str)
        and len(relation) <= MAX_RELATION_LENGTH
        and bool(RELATION_PATTERN.match(relation))
    )


class RelationNameError(StoreError, ValueError):
    """A relation type that is not strict snake_case; it never reaches a query."""

    def __init__(self, relation: object) -> None:
        self.relation = relation
        super().__init__(
            f"relation {relation!r} is not a snake_case name (expected {RELATION_PATTERN.pattern}, "
            f"at most {MAX_RELATION_LENGTH} characters); normalise it before writing the triple"
        )


def check_relation(relation: object) -> str:
    """Return ``relation`` if it is a strict snake_case name, else raise `RelationNameError`."""
    if not is_valid_relation(relation):
        raise RelationNameError(relation)
    return relation
