"""The LangChain adapter returns provisions as Documents with ids and official URLs."""

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.retrieval.langchain_retriever import BifrostRetriever


@pytest.mark.slow
def test_documents_carry_provision_ids_and_urls(osha_home):
    bf = Bifrost(Settings(home=osha_home))
    try:
        docs = BifrostRetriever(
            retriever=bf.retriever("osha-1926"), lookup=bf.lookup("osha-1926"), k=5
        ).invoke("How to protect excavation work from rainstorm hazard?")
    finally:
        bf.close()
    assert 1 <= len(docs) <= 5
    assert all(d.metadata["url"].startswith("https://www.ecfr.gov/") and d.page_content for d in docs)
    assert any(d.metadata["id"].startswith("1926.651(h)") for d in docs)
