"""`bifrost train decision --no-validate` (what `make demo` runs) on a copy of the OSHA home with its ranker:
the model is stored behind the ranker, its card names the set it was fitted on, and `ask` then decides by it
(the governing rule cited first when it clears the bar the card holds, else a shortlist led by the likeliest
rule and no rule stated; no warning naming the command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.retrieval.answer.decision_model import decision_folder
from tests.conftest import ROOT, copy_home_with_models

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
NATURAL_DEV = ROOT / "eval" / "questions" / "osha-natural-dev.jsonl"


@pytest.fixture(scope="module")
def decided_home(osha_ranker_home, shared_dir, tmp_path_factory):
    home = tmp_path_factory.mktemp("decision-home")
    copy_home_with_models(osha_ranker_home, home)
    bf = Bifrost(Settings(home=home, shared_dir=shared_dir))
    try:
        report = bf.train_decision([NATURAL_DEV], "osha-1926", validate=False)
    finally:
        bf.close()
    return home, shared_dir, report


def test_the_model_is_stored_behind_the_ranker_naming_its_set(decided_home):
    home, shared_dir, report = decided_home
    assert report.model_path and not report.left_out
    settings = Settings(home=home, shared_dir=shared_dir)
    card = json.loads((decision_folder(settings, "osha-1926") / "card.json").read_text())
    assert {Path(q["path"]).name for q in card["questions"]} == {"osha-natural-dev.jsonl"}
    assert isinstance(card["state_bar"], float)  # chosen out of fold: 1.1 (never state) when no bar is right


def test_ask_decides_by_it(decided_home):
    home, shared_dir, _ = decided_home
    settings = Settings(home=home, shared_dir=shared_dir)
    bar = json.loads((decision_folder(settings, "osha-1926") / "card.json").read_text())["state_bar"]
    bf = Bifrost(settings)
    try:
        answer = bf.ask(
            "Is fall protection required for our painters who work from a frame scaffold all day,"
            " 14 feet up?",
            corpus="osha-1926",
        )
    finally:
        bf.close()
    assert not any("train decision" in w for w in answer.warnings)
    if answer.outcome.value == "answered":
        assert answer.governing and answer.citations[0].id == answer.governing[0].id
        assert answer.governing[0].probability >= bar and not answer.shortlist
    else:  # no rule sure enough: the likeliest listed and quoted in the same order, none stated, no verdict
        assert answer.outcome.value == "shortlist" and not answer.governing and answer.verdict is None
        assert answer.shortlist[0].probability < bar or answer.shortlist[0].id in {
            c.target_id for c in answer.named
        }
        assert [c.id for c in answer.citations] == [s.id for s in answer.shortlist]
