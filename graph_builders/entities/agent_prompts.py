"""The five extraction agents' prompts and reply schemas, loaded and checked together.

Kept apart from the pipeline so the prompt set (and its fingerprint, part of the extractor
version) can be inspected and swapped without touching the pipeline code.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bifrost.core.errors import PromptError
from bifrost.core.prompts import PromptTemplatePair, load_prompt
from bifrost.core.structured import EntityOut, TripleOut

AGENTS: tuple[str, ...] = (
    "content_pruning",
    "entity_extraction",
    "entity_validation",
    "relation_extraction",
    "relation_validation",
)

# Variables each agent's templates must use, so a prompt edit that drops one fails at load time.
REQUIRED_VARIABLES: dict[str, frozenset[str]] = {
    "content_pruning": frozenset({"provision_id", "text"}),
    "entity_extraction": frozenset({"provision_id", "pruned_text"}),
    "entity_validation": frozenset({"provision_id", "text", "entities_json"}),
    "relation_extraction": frozenset({"provision_id", "pruned_text", "entities_json"}),
    "relation_validation": frozenset({"provision_id", "text", "entities_json", "triples_json"}),
}


class ExtractionPrompts(BaseModel):
    """One prompt pair per extraction agent; each needs a repair template for invalid replies."""

    model_config = ConfigDict(frozen=True)

    content_pruning: PromptTemplatePair
    entity_extraction: PromptTemplatePair
    entity_validation: PromptTemplatePair
    relation_extraction: PromptTemplatePair
    relation_validation: PromptTemplatePair

    @classmethod
    def load(cls, version: str = "latest", prompts_dir: str | Path | None = None) -> ExtractionPrompts:
        """Load all five agents at ``version`` (``latest`` = each agent's newest)."""
        return cls(**{agent: load_prompt(agent, version, prompts_dir) for agent in AGENTS})

    @model_validator(mode="after")
    def _check(self) -> ExtractionPrompts:
        for agent in AGENTS:
            pair: PromptTemplatePair = getattr(self, agent)
            missing = REQUIRED_VARIABLES[agent] - pair.placeholders
            if missing:
                raise PromptError(f"prompt {pair.id} for agent {agent} does not use {sorted(missing)}")
            extra = pair.placeholders - REQUIRED_VARIABLES[agent]
            if extra:
                raise PromptError(f"prompt {pair.id} for agent {agent} uses unknown {sorted(extra)}")
            if pair.repair is None:
                raise PromptError(
                    f"prompt {pair.id}: missing file {pair.path / (pair.version + '.repair.txt')}"
                )
        return self

    def get(self, agent: str) -> PromptTemplatePair:
        """The prompt pair of one agent by name."""
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r}; agents are {AGENTS}")
        return getattr(self, agent)

    @property
    def fingerprint(self) -> str:
        """Hash over every agent's prompt texts: a wording change makes a new extractor version."""
        h = hashlib.sha256()
        for agent in AGENTS:
            h.update(self.get(agent).fingerprint.encode())
        return h.hexdigest()[:12]


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class PruningReply(_Lenient):
    pruned_text: str = Field(min_length=1)


class EntityExtractionReply(_Lenient):
    entities: list[EntityOut] = Field(default_factory=list)
    section_ids: list[str] = Field(default_factory=list)


class EntityValidationReply(_Lenient):
    entities: list[EntityOut] = Field(default_factory=list)


class TriplesReply(_Lenient):
    triples: list[TripleOut] = Field(default_factory=list)
