"""What the LLM extraction agents report: a provision that failed (which agent, why), the error that stops a
strict run on one, and the counts of a whole run."""

from __future__ import annotations
from collections import Counter
from pydantic import BaseModel, Field
from bifrost.core.errors import BifrostError
from bifrost.core.types import Frozen


class FailedItem(Frozen):
    """A provision the agents could not extract: which agent gave up and why."""

    corpus: str
    provision_id: str
    agent: str
    reason: str


class ExtractionFailedError(BifrostError):
    """Raised by `LlmExtractor.extract` when an agent fails; carries the `FailedItem`."""

    def __init__(self, item: FailedItem) -> None:
        self.item = item
        super().__init__(f"{item.corpus}:{item.provision_id}: agent {item.agent} failed: {item.reason}")


class ExtractionReport(BaseModel):
    """What one run of the agents did: counts of each kind of rejection, and the failed items."""

    provisions: int = 0
    extracted: int = 0
    from_journal: int = 0
    empty: int = Field(default=0, description="Provisions without text (reserved), extracted with no call")
    failed: list[FailedItem] = Field(default_factory=list)
    repairs: int = Field(default=0, description="Invalid replies that were fed back and retried")
    pruning_fallbacks: int = Field(default=0, description="Pruned text lost a section id; original text used")
    ungrounded_entities: int = Field(
        default=0, description="Entities whose name is not words of the provision's text: dropped"
    )
    pruning_invalid: int = Field(
        default=0, description="Pruning gave no usable reply after every repair; original text used"
    )
    rejected_triples: int = Field(default=0, description="Head or tail not among the validated entities")
    invalid_relations: int = Field(default=0, description="Relation not snake_case after normalization")
    dropped_section_refs: int = Field(
        default=0, description="Rejected by the citation grammar or not in corpus"
    )

    def add(self, counts: Counter[str]) -> None:
        for key, n in counts.items():
            setattr(self, key, getattr(self, key) + n)
