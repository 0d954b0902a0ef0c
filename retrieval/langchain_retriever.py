"""A LangChain `BaseRetriever` over Bifrost: provisions as `Document`s with ids and URLs.

Lets any LangChain chain use the dual-graph retrieval; metadata carries the provision id,
corpus, official URL, score, how it was reached and its path.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict


class BifrostRetriever(BaseRetriever):
    """``BifrostRetriever(bifrost=Bifrost(settings), corpus="osha-1926", k=10)``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    bifrost: Any
    corpus: str = "osha-1926"
    k: int = 10

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        result = self.bifrost.retriever(self.corpus).retrieve(query)
        lookup = self.bifrost.lookup(self.corpus)
        docs = []
        for it in result.items[: self.k]:
            p = lookup(it.id)
            if p is None:
                continue
            docs.append(
                Document(
                    page_content=" ".join(x for x in (p.heading, p.text) if x),
                    metadata={
                        "id": p.id, "corpus": p.corpus, "url": p.url, "score": it.score,
                        "via": [v.value for v in it.via], "path": list(it.path), "why": it.why,
                    },
                )
            )
        return docs
