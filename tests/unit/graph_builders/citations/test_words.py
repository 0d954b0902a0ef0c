"""Each jurisdiction's rulebook words add to the generic English ones; a new corpus gets the generic words
and a note saying so."""

from bifrost.graph_builders.citations.words import GENERIC
from bifrost.graph_builders.jurisdictions.registry import jurisdiction, packs, words_for


def test_known_corpora_get_their_jurisdictions_words_on_top_of_the_generic_ones():
    assert (
        words_for("osha-1926") is jurisdiction("us-cfr").words
        and words_for("adgm") is jurisdiction("adgm").words
    )
    for words in (pack.words for pack in packs().values()):
        assert set(GENERIC.exception) <= set(words.exception) and set(GENERIC.authorities) <= set(
            words.authorities
        )
        assert words.note == ""
    assert words_for("adgm").exception_words.search("Subject to Rule 6.2.1, a firm must ...")
    assert not words_for("osha-1926").exception_words.search("a contract subject to section 107 of the Act")


def test_a_corpus_of_no_known_jurisdiction_reads_by_the_generic_words_with_a_note():
    words = words_for("my-new-rulebook")
    assert words == GENERIC and "'my-new-rulebook' has no rulebook words of its own" in words.note
    assert words.exception_words.search(
        "Unless the Board decides otherwise"
    ) and words.authority_power.search("The Board may waive it")
