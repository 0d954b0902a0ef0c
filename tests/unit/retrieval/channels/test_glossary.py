"""A site-words glossary: its file format, its matching, and its effect on the lexical query only."""

from __future__ import annotations

import pytest

from bifrost.core.errors import ConfigError
from bifrost.retrieval.channels.bm25 import Bm25Ranker
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.channels.glossary import load_glossary, parse_glossary

TEXT = """# site words = rule words
tie off, tied off = personal fall arrest anchorage
lip = edge   # of a trench
ladder jack = ladder jack scaffold
"""


def test_a_line_maps_each_of_its_site_phrasings_to_the_rule_words():
    g = parse_glossary(TEXT, "test")
    assert [e.site for e in g.entries] == [("tie off", "tied off"), ("lip",), ("ladder jack",)]
    assert g.expansion("Where do my guys TIE OFF on the deck?") == "personal fall arrest anchorage"
    assert g.expansion("They tied off to the rail") == "personal fall arrest anchorage"


def test_site_words_match_whole_words_and_their_plurals_only():
    g = parse_glossary(TEXT, "test")
    assert g.expansion("dirt at the lips of the trench") == "edge"
    assert g.expansion("a worker might slip") == ""
    assert g.expansion("two ladder jacks") == "ladder jack scaffold"


def test_each_entry_adds_its_rule_words_once():
    g = parse_glossary("lip, edge of cut = edge\nrim = edge\n", "test")
    assert g.expansion("the lip, the rim, the edge of cut") == "edge"


def test_where_site_phrases_overlap_the_longest_wins():
    g = parse_glossary("cherry picker, man lift = aerial lift\npicker = crane\n", "test")
    assert g.expansion("is the cherry picker ok near the line?") == "aerial lift"
    assert g.expansion("the picker and a man lift") == "aerial lift crane"
    assert [e.rule_words for e in load_glossary("construction").matches("tie off in the cherry picker")] == [
        e.rule_words
        for e in load_glossary("construction").entries
        if e.rule_words in ("aerial lift",) or "tie off" in e.site
    ]


def test_a_malformed_line_names_the_glossary_and_the_line():
    with pytest.raises(
        ConfigError, match=r"glossary my\.txt: line 2: expected 'site words = rule words', got 'spoil dirt'"
    ):
        parse_glossary("lip = edge\nspoil dirt\n", "my.txt")
    with pytest.raises(ConfigError, match="line 1"):
        parse_glossary(" = edge\n", "my.txt")
    with pytest.raises(ConfigError, match="line 1"):
        parse_glossary("lip =\n", "my.txt")


def test_a_setting_names_no_glossary_the_built_in_one_or_a_file(tmp_path):
    assert load_glossary("") is None
    built_in = load_glossary("construction")
    assert built_in is not None and built_in.expansion("where does the spoil go") == "excavated materials"
    path = tmp_path / "company.txt"
    path.write_text("knuckle boom = articulating boom crane\n")
    assert load_glossary(str(path)).expansion("our knuckle boom truck") == "articulating boom crane"


def test_a_missing_glossary_file_is_one_line_naming_it(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_glossary(str(tmp_path / "nope.txt"))
    assert str(tmp_path / "nope.txt") in str(e.value) and "\n" not in str(e.value)


def test_the_retrieval_setting_accepts_a_glossary_and_defaults_to_none():
    assert RetrievalConfig().glossary == ""
    assert RetrievalConfig(glossary="construction").glossary == "construction"


def test_bm25_finds_the_rule_for_a_site_word_only_through_the_glossary(settings):
    plain = Bm25Ranker(settings)
    plain.warm_up("tiny")
    assert plain.search("is our hole ok", 3) == []
    bridged = Bm25Ranker(settings, glossary=parse_glossary("hole = trench excavation", "test"))
    bridged.warm_up("tiny")
    assert bridged.search("is our hole ok", 3)[0].id == "1926.651(a)"
    assert bridged.query_tokens("the hole") == [*plain.tokenize("hole"), *plain.tokenize("trench excavation")]
    assert bridged.describe()["glossary"] == "test"
    assert plain.score_all("hole").max() == 0 < bridged.score_all("hole").max()
    assert bridged.profile("is our hole ok") == plain.profile("is our hole ok")  # the question's own wording


def test_a_ranker_trained_with_another_glossary_gets_a_one_line_warning():
    from bifrost.retrieval.ranking.ltr.model import ModelCard, glossary_mismatch

    card = ModelCard(corpus="osha-1926", embedding_model="m", features=[], glossary="")
    assert glossary_mismatch(card, "") is None
    warning = glossary_mismatch(card, "construction")
    assert "'none'" in warning and "'construction'" in warning and "BIFROST_RETRIEVAL__GLOSSARY" in warning
    assert (
        glossary_mismatch(
            ModelCard(corpus="c", embedding_model="m", features=[], glossary="construction"), "construction"
        )
        is None
    )
