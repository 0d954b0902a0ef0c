"""`parsed_before` tells whether answering a question needs the parser: true once the journaled
decomposer has parsed it for every corpus asked, false for a new question or another corpus."""

from __future__ import annotations

from bifrost.graph_builders.entities.checkpoint import ExtractionJournal
from bifrost.graph_builders.entities.journaled import JournaledExtractor
from bifrost.graph_builders.entities.offline_extractor import OfflineExtractor
from bifrost.retrieval.decompose import ExtractorDecomposer, parsed_before

QUESTION = "Who must inspect the scaffold before each work shift?"


def test_a_question_is_parsed_before_once_the_journaled_decomposer_has_parsed_it(tmp_path):
    journal = ExtractionJournal.at_path(tmp_path / "journal.db")
    offline = OfflineExtractor()
    try:
        assert not parsed_before(journal, offline.version, QUESTION, ["osha-1926"])
        ExtractorDecomposer(JournaledExtractor(offline, journal, offline.version)).decompose(
            QUESTION, "osha-1926"
        )
        assert parsed_before(journal, offline.version, QUESTION, ["osha-1926"])
        assert not parsed_before(journal, offline.version, QUESTION, ["osha-1926", "adgm"])
        assert not parsed_before(journal, offline.version, QUESTION + " Daily?", ["osha-1926"])
        assert not parsed_before(journal, offline.version + "-other", QUESTION, ["osha-1926"])
    finally:
        journal.close()
