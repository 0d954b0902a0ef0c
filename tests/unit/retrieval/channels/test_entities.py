"""Entity and triple matches computed ahead for a question set equal the ones computed per
question, are used only when complete, and answering never adds to them."""

from __future__ import annotations

from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.channels.entities import MatchMemo, match_entities, match_triples
from tests.unit.retrieval.ranking.test_hybrid import PLAN, WordsEmbedder, make_index

CFG = RetrievalConfig()
TRIPLES = [*PLAN.triples, *PLAN.swapped]


def setup():
    emb = WordsEmbedder()
    return make_index(emb), emb


def test_matches_read_from_a_filled_memo_equal_the_matches_computed_per_question():
    index, emb = setup()
    memo = MatchMemo()
    memo.fill(index, emb, [*PLAN.entities, "water pump"], TRIPLES, CFG, chunk=1)
    assert match_entities(index, emb, "q", PLAN.entities, CFG, memo) == match_entities(
        index, emb, "q", PLAN.entities, CFG
    )
    assert match_triples(index, emb, TRIPLES, CFG, memo) == match_triples(index, emb, TRIPLES, CFG)
    assert len(memo.entities) == 3 and len(memo.triples) == 2


def test_a_memo_missing_one_name_or_filled_for_other_settings_is_not_used():
    index, emb = setup()
    memo = MatchMemo()
    memo.fill(index, emb, ["employee"], [], CFG)
    assert memo.lookup_entities(PLAN.entities, CFG.entity_k, CFG.entity_threshold) is None
    assert memo.lookup_entities(["employee"], CFG.entity_k + 1, CFG.entity_threshold) is None
    assert memo.lookup_entities(["employee"], CFG.entity_k, CFG.entity_threshold) is not None


def test_answering_does_not_grow_the_memo():
    index, emb = setup()
    memo = MatchMemo()
    match_entities(index, emb, "q", PLAN.entities, CFG, memo)
    match_triples(index, emb, TRIPLES, CFG, memo)
    assert memo.entities == {} and memo.triples == {}


def test_an_index_read_back_from_its_folder_holds_the_same_triples_and_matches_alike(tmp_path):
    index, emb = setup()
    index.save(tmp_path / "eng-x")
    back = type(index)._from_folder(tmp_path / "eng-x", index.corpus, index.n_provisions)
    assert back.triples == index.triples
    assert {hash(t) for t in back.triples} == {hash(t) for t in index.triples}
    assert match_triples(back, emb, TRIPLES, CFG) == match_triples(index, emb, TRIPLES, CFG)
