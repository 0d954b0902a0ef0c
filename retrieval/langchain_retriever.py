"""A LangChain `BaseRetriever` over Bifrost: provisions as `Document`s with ids and URLs.

Lets any LangChain chain use the dual-graph retrieval; metadata carries the provision id,
corpus, official URL, score, how it was reached and its path.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from bifrost.core.types import Provision
from bifrost.retrieval.base import Retriever


class BifrostRetriever(BaseRetriever):
    """The ``k`` best provisions of one corpus as documents::

        with Bifrost(settings) as bf:
            docs = BifrostRetriever(retriever=bf.retriever("osha-1926"), lookup=bf.lookup("osha-1926"), k=10)

    ``retriever`` ranks the corpus (asked for at least ``k`` items, whatever its configured
    ``top_n``); ``lookup`` reads a provision by id for the document's text (ids it does not know
    are left out)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: Retriever
    lookup: Callable[[str], Provision | None]
    k: int = Field(default=10, gt=0)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        """The ``k`` best documents (``invoke(query, k=3)`` overrides the retriever's own ``k`` for one
        call)."""
        k = self.k if k is None else k
        if not isinstance(k, int) or k <= 0:
            raise ValueError(f"k must be a whole number above 0, got {k!r}")
        config = self.retriever.config
        if config.top_n < k:
            config = config.model_copy(update={"top_n": k})
        result = self.retriever.retrieve(query, config)
        docs = []
        for it in result.items[:k]:
            p = self.lookup(it.id)
            if p is None:
                continue
            docs.append(
                Document(
                    page_content=" ".join(x for x in (p.heading, p.text) if x),
                    metadata={
                        "id": p.id,
                        "corpus": p.corpus,
                        "url": p.url,
                        "score": it.score,
                        "via": [v.value for v in it.via],
                        "path": list(it.path),
                        "why": it.why,
                    },
                )
            )
        return docs
