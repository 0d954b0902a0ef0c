"""benchmarks/corpus_router_probe.py: a letter's title loses the citations that would give its part away, and
a letter is answered by the corpora holding a part it cites (none for Part 1910 alone)."""

from __future__ import annotations

from benchmarks.corpus_router_probe import answering, stripped

CORPORA = ["osh-act", "osha-1900-1909", "osha-1926"]


def test_titles_lose_their_citations_and_keep_their_words():
    assert stripped("Application of 1910.106 to packaged alcoholic beverages.") == (
        "Application of to packaged alcoholic beverages."
    )
    assert stripped("Recording a cut under 29 CFR 1904.7(b)(5)(ii) and Part 1926 Subpart M") == (
        "Recording a cut under and Subpart M"
    )
    assert stripped("Guardrails on a 14 ft frame scaffold") == "Guardrails on a 14 ft frame scaffold"


def test_a_letter_is_answered_by_the_corpora_holding_the_parts_it_cites():
    assert answering({"1926"}, CORPORA) == {"osha-1926"}
    assert answering({"1904", "1926"}, CORPORA) == {"osha-1900-1909", "osha-1926"}
    assert answering({"1910"}, CORPORA) == set()
