"""LangChain's own standard retriever suite (langchain-tests `RetrieversIntegrationTests`) on the Bifrost
retriever over the mini corpus, both graphs built: documents returned, `k` honoured in the constructor and
per call (`invoke(query, k=1)`), async invoke, and no override of what LangChain must own."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
import shutil
import tempfile

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.retrieval.langchain_retriever import BifrostRetriever
from tests.unit.mini_corpus import built_mini_home

pytestmark = [pytest.mark.timeout(600), pytest.mark.asyncio]  # the suite's ainvoke test is a coroutine


@lru_cache(maxsize=1)
def _root() -> Path:
    return Path(tempfile.mkdtemp(prefix="langchain-suite-"))


@lru_cache(maxsize=1)
def mini() -> Bifrost:
    """One built mini home for the suite (its tests read properties, not fixtures)."""
    return Bifrost(Settings(home=built_mini_home(_root())))


@pytest.fixture(scope="module", autouse=True)
def _mini_home_removed_after_the_suite():
    """The mini home (about 90 MB) is removed after this module's tests, not left in the temp folder."""
    yield
    if _root.cache_info().currsize:
        mini.cache_clear()
        shutil.rmtree(_root(), ignore_errors=True)
        _root.cache_clear()


class TestBifrostRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[BifrostRetriever]:
        return BifrostRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        bf = mini()
        return {"retriever": bf.retriever("mini"), "lookup": bf.lookup("mini")}

    @property
    def retriever_query_example(self) -> str:
        return "Who must prepare the fall protection plan?"
