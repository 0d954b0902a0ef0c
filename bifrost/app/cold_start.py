"""What a cold `bifrost ask` loads in a forked model process while the main process loads indexes
(`bifrost.core.model_process`): kept apart from the facade so that starting it imports nothing heavy."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bifrost.core.model_process import Service
    from bifrost.core.settings import Settings


def model_services(settings: Settings, question: str, corpus: str) -> dict[str, Callable[[], Service]]:
    """What a cold `ask` loads in child processes (one per service, `ModelProcesses`): unless a chat model
    decomposes questions, the spaCy parser (loaded first, and only if the extraction journal lacks this
    question's parse: decomposing comes first), then the embedding model."""

    def extract() -> Service:
        from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
        from bifrost.graph_builders.entities.offline_extractor import OfflineExtractor, extract_service
        from bifrost.retrieval.decompose import parsed_before

        corpora = corpus.split(",")
        journal = ExtractionJournal.at_path(settings.home / "extraction_journal.db")
        try:
            known = "all" not in corpora and parsed_before(
                journal, OfflineExtractor(settings.spacy_model).version, question, corpora
            )
        finally:
            journal.close()
        return extract_service(settings.spacy_model, preload=not known)

    def encode() -> Service:
        from bifrost.core.embeddings import embedder_for, encode_service

        return encode_service(embedder_for(settings))

    return {"encode": encode} if settings.llm_model else {"extract": extract, "encode": encode}
