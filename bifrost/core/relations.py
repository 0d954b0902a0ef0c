"""The one rule for relation type names: strict snake_case, at most 64 characters.

Extractors normalize to it, stores check it before a name reaches a query.
"""

from __future__ import annotations

import re

RELATION_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
MAX_RELATION_LENGTH = 64


def is_valid_relation(relation: object) -> bool:
    """True for a non-empty lower snake_case name of at most `MAX_RELATION_LENGTH` characters."""
    return isinstance(relation, str) and len(relation) <= MAX_RELATION_LENGTH and bool(RELATION_PATTERN.match(relation))
