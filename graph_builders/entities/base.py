"""The shapes shared by Entity Network builders: the extractor protocol and the build report.

Offline (spaCy) and agent (LLM) extractors implement `EntityExtractor`, so the build does not
care which one produced an `Extraction`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from bifrost.core.types import Extraction, Provision


@runtime_checkable
class EntityExtractor(Protocol):
    """Turns provisions into extractions, one per provision, in input order."""

    name: str

    def extract_many(self, provisions: Iterable[Provision]) -> Iterator[Extraction]:
        """One `Extraction` per provision; may raise for a batch (the build then retries one by one)."""
        ...


@runtime_checkable
class ReportsFailures(Protocol):
    """An extractor that leaves failed provisions out of `extract_many` and says why."""

    def failure_reasons(self) -> dict[str, str]:
        """``provision id -> reason`` of the provisions the last `extract_many` call left out."""
        ...


class EntitySyncReport(BaseModel):
    """What a build changed in the stores: SQL rows and graph-store nodes and edges."""

    entities_added: int = 0
    entities_removed: int = 0
    entities_changed: int = Field(default=0, description="Label, provisions or vector changed")
    triples_added: int = 0
    triples_removed: int = 0
    triples_changed: int = 0
    graph_nodes_deleted: int = 0
    graph_nodes_written: int = 0
    graph_edges_deleted: int = 0
    graph_edges_written: int = 0

    @property
    def unchanged(self) -> bool:
        """True when the build wrote nothing."""
        return not any(self.model_dump().values())


class EntityBuildReport(BaseModel):
    """What one Entity Network build did."""

    corpus: str
    extractor: str = ""
    provisions_processed: int = 0
    entities: int = 0
    relations: int = Field(default=0, description="Distinct triples after merging")
    relation_types: int = 0
    mentions: int = Field(default=0, description="Entity mentions fed to the refiner")
    section_refs: int = Field(default=0, description="Referenced provision ids found by the extractor")
    failed: list[str] = Field(default_factory=list, description="'provision id: reason' of items that failed")
    extracted: int = Field(
        default=0, description="Provisions sent to the extractor (spaCy parse or model calls)"
    )
    from_journal: int = Field(
        default=0, description="Provisions read back from the extraction journal (unchanged)"
    )
    texts_embedded: int = Field(
        default=0, description="Names and relation phrases sent to the embedding model"
    )
    changes: EntitySyncReport = Field(default_factory=EntitySyncReport)
    seconds: float = 0.0
