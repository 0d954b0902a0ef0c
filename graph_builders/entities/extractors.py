"""Choosing the entity extractor for a corpus: the LLM agents when a chat model is configured
(or asked for), else the offline spaCy extractor; both keep their extractions in the home's journal."""

from __future__ import annotations

from bifrost.core.errors import BifrostError
from bifrost.core.resources import Resources
from bifrost.graph_builders.entities.base import EntityExtractor

EXTRACTOR_KINDS = ("auto", "offline", "llm")


def make_entity_extractor(resources: Resources, corpus: str, kind: str = "auto") -> EntityExtractor:
    """The extractor of ``kind`` (auto, offline, llm) for ``corpus``; a one-line error otherwise."""
    if kind not in EXTRACTOR_KINDS:
        raise BifrostError(f"unknown extractor {kind!r}: use offline, llm or auto")
    if kind == "llm" or (kind == "auto" and resources.chat_model is not None):
        if resources.chat_model is None:
            raise BifrostError("extractor 'llm' needs a chat model: set BIFROST_LLM_MODEL and OPENAI_API_KEY")
        from bifrost.graph_builders.jurisdictions.registry import pack_of
        from bifrost.graph_builders.entities.agent_prompts import ExtractionPrompts
        from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
        from bifrost.graph_builders.entities.llm_agents import LlmExtractor, grammar_ref_validator

        known = {p.id for p in resources.sql.provisions(corpus)}
        return LlmExtractor(
            resources.chat_model,
            ExtractionPrompts.load(prompts_dir=resources.settings.prompts_dir),
            grammar_ref_validator(
                pack_of(corpus, resources.sql.jurisdiction(corpus)).grammar.normalize, known
            ),
            resources.settings.llm_concurrency,
            journal=ExtractionJournal.at_path(resources.settings.home / "extraction_journal.db"),
            callbacks=(resources.usage_counter,),
            max_connection_failures=resources.settings.llm_max_connection_failures,
            response_format=resources.settings.llm_response_format,
        )
    from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
    from bifrost.graph_builders.entities.journaled import JournaledExtractor
    from bifrost.graph_builders.entities.offline_extractor import OfflineExtractor

    # journaled: an unchanged provision is never parsed again
    offline = OfflineExtractor(resources.settings.spacy_model, process=resources.model_process)
    return JournaledExtractor(
        offline, ExtractionJournal.at_path(resources.settings.home / "extraction_journal.db"), offline.version
    )
