"""What a cold `bifrost ask` loads in a forked model process while the main process loads indexes
(`bifrost.core.model_process`): kept apart from the facade so that starting it imports nothing heavy."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bifrost.core.model_process import Service
    from bifrost.core.settings import Settings


def model_services(settings: Settings, question: str, corpus: str | None) -> dict[str, Callable[[], Service]]:
    """What a cold `ask` loads in child processes (one per service, `ModelProcesses`): unless a chat model
    decomposes questions, the spaCy parser (loaded first, and only if the extraction journal lacks this
    question's parse: decomposing comes first), then the embedding model."""

    def extract() -> Service:
        from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
        from bifrost.graph_builders.entities.offline_extractor import OfflineExtractor, extract_service
        from bifrost.retrieval.decompose import parsed_before

        named = [] if not corpus or corpus == "all" else corpus.split(",")
        journal = ExtractionJournal.at_path(settings.home / "extraction_journal.db")
        version = OfflineExtractor(settings.spacy_model).version
        try:
            if named:
                known = parsed_before(journal, version, question, named)
            else:  # every corpus: the router asks one or two, so any one that parsed it before will do
                index = settings.home / "index"
                home = sorted(p.name for p in index.iterdir() if p.is_dir()) if index.is_dir() else []
                known = any(parsed_before(journal, version, question, [c]) for c in home)
        finally:
            journal.close()
        return extract_service(settings.spacy_model, preload=not known)

    def encode() -> Service:
        from bifrost.core.embeddings import embedder_for, encode_service

        return encode_service(embedder_for(settings))

    return {"encode": encode} if settings.llm_model else {"extract": extract, "encode": encode}
