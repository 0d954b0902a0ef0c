"""`McpService.require_corpus`: the ingested corpus names are read once, again only for a name not
seen yet (a corpus ingested while the server runs), and an unknown corpus is still refused."""

from __future__ import annotations

from unittest.mock import MagicMock

import pytest

from bifrost.app.facade import Bifrost
from bifrost.app.mcp.service import McpService
from bifrost.core.errors import NotFoundError


@pytest.fixture
def bifrost() -> MagicMock:
    bf = MagicMock(spec=Bifrost)
    bf.corpora.return_value = ["osha-1926"]
    return bf


def test_a_served_corpus_is_checked_without_reading_the_store_each_call(bifrost):
    service = McpService(bifrost)
    for _ in range(3):
        service.require_corpus("osha-1926")
    assert bifrost.corpora.call_count == 1


def test_a_corpus_ingested_while_serving_is_found_on_its_first_call(bifrost):
    service = McpService(bifrost)
    service.require_corpus("osha-1926")
    bifrost.corpora.return_value = ["adgm", "osha-1926"]
    service.require_corpus("adgm")
    assert bifrost.corpora.call_count == 2


def test_an_unknown_corpus_is_refused_naming_the_ingested_ones(bifrost):
    service = McpService(bifrost)
    with pytest.raises(NotFoundError) as info:
        service.require_corpus("nope")
    assert str(info.value) == "unknown corpus 'nope'; loaded corpora: osha-1926"


def test_corpora_given_at_startup_are_the_only_ones_served(bifrost):
    service = McpService(bifrost, ["osha-1926"])
    with pytest.raises(NotFoundError):
        service.require_corpus("adgm")
    bifrost.corpora.assert_not_called()
