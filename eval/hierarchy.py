"""Hierarchy relations used for credit in metrics, from the corpus's jurisdiction pack.

A relation is a pair of functions passed to the metrics: `related(a, b)` (a is an ancestor or descendant
of b) and `section_of(id)` (the section-level id): the CFR reads them from its citations, ADGM from the
corpus's parent links.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bifrost.core.types import Provision
from bifrost.graph_builders.jurisdictions.base import Related, SectionOf
from bifrost.graph_builders.jurisdictions.registry import pack_of

__all__ = ["Related", "SectionOf", "hierarchy_for"]


def hierarchy_for(
    corpus: str, jurisdiction: str | None, provisions: Callable[[], Iterable[Provision]]
) -> tuple[Related, SectionOf]:
    """The hierarchy of ``corpus`` (stored ``jurisdiction``, else its spec's); ``provisions()`` is read only
    by a pack whose ids carry no structure."""
    return pack_of(corpus, jurisdiction).hierarchy(provisions)
