"""A third rulebook family is one folder: the made-up Ruleville pack (tests/fixtures/jurisdictions/ruleville),
named in BIFROST_JURISDICTION_PACKS, ingests its own plain-text format, builds both graphs with its own
citation style and answers questions that name its clauses or only describe them."""

from __future__ import annotations

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.errors import BifrostError
from bifrost.core.settings import Settings
from bifrost.graph_builders.jurisdictions.registry import PACKS_ENV, packs
from tests.conftest import FIXTURES
from tests.unit.mini_corpus import build_corpus

PACK = "tests.fixtures.jurisdictions.ruleville"
CODE = FIXTURES / "jurisdictions" / "ruleville" / "ladders.rules"
CORPUS = "ruleville-ladders"


@pytest.fixture(scope="module")
def ruleville(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(PACKS_ENV, PACK)
        bf = Bifrost(Settings(home=tmp_path_factory.mktemp("ruleville") / "home"))
        build_corpus(bf, CORPUS, CODE)
        yield bf
        bf.close()


def test_the_pack_is_found_beside_the_shipped_ones(ruleville):
    assert {"us-cfr", "adgm", "ruleville"} <= set(packs())
    assert ruleville.sql.jurisdiction(CORPUS) == "ruleville"


def test_both_graphs_are_built_in_its_own_citation_style(ruleville):
    stats = ruleville.stats(CORPUS)
    assert stats.nodes_by_kind == {"part": 1, "section": 7, "paragraph": 27}
    assert stats.edges_by_type["HAS"] == 34
    assert stats.edges_by_type["REFERS_TO"] == 14  # "Clauses 3.1 to 3.3" is three
    assert stats.dangling_references == 1  # clause 8.4 of an old permit
    assert stats.entities > 0 and stats.edges_by_type["MENTIONED_IN"] > 0
    assert ruleville.graph.references_out(f"{CORPUS}:3.3") == [(f"{CORPUS}:3.4", "clause 3.4")]


def test_a_question_naming_a_clause_cites_it(ruleville):
    answer = ruleville.ask("What does cl. 2.3 require?", corpus=CORPUS)
    assert not answer.refused
    assert [c.target_id for c in answer.named] == ["2.3"]
    assert "2.3" in {c.id for c in answer.citations}


def test_a_renumbered_clause_is_answered_from_its_successor(ruleville):
    answer = ruleville.ask("Does clause 9.1 still apply to daily checks?", corpus=CORPUS)
    (named,) = answer.named
    assert (named.target_id, named.via) == ("2.1", "successor")


def test_a_question_in_other_words_finds_the_rule(ruleville):
    answer = ruleville.ask("How long must ladder inspection records be kept?", corpus=CORPUS)
    assert not answer.refused
    assert "2.3" in {c.id for c in answer.citations}


def test_a_pack_that_cannot_be_loaded_is_one_line_naming_it(monkeypatch):
    monkeypatch.setenv(PACKS_ENV, "tests.fixtures.jurisdictions.nowhere")
    with pytest.raises(BifrostError) as err:
        packs()
    assert "'tests.fixtures.jurisdictions.nowhere' cannot be loaded" in str(err.value) and "\n" not in str(
        err.value
    )
