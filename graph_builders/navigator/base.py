"""What every reference extractor shares: a corpus index built once, and `extract` resolving against it.

Each jurisdiction brings its own index (`KnownProvisions` for the CFR, `AdgmIndex` for ADGM); the
navigator build asks the extractor for it and never looks at its shape.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar, runtime_checkable

from bifrost.core.types import Provision, Reference


@runtime_checkable
class ProvisionIndex(Protocol):
    """The corpus as an extractor resolves against it: at least, which provision ids exist."""

    def __contains__(self, provision_id: object) -> bool: ...


IndexT = TypeVar("IndexT", bound=ProvisionIndex)


@runtime_checkable
class ReferenceExtractor(Protocol[IndexT]):
    """Finds the cross-references in one provision's text, resolved against the index it built."""

    name: str

    def index(self, provisions: Iterable[Provision]) -> IndexT:
        """The corpus index `extract` resolves against (built once per corpus)."""
        ...

    def extract(self, provision: Provision, known: IndexT) -> list[Reference]:
        """References in `provision.text`, one per target; unresolved ones are kept dangling with a reason."""
        ...
