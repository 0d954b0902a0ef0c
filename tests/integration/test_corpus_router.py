"""The corpus router on real rulebooks: Part 1926 with OSHA's letters beside the OSH Act. Trained on the
letters, it asks a construction question of Part 1926 alone, so the answer over every corpus is the answer
Part 1926 gives by itself (asking every rulebook costs a construction question nothing)."""

from __future__ import annotations

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.conftest import copy_home

pytestmark = pytest.mark.timeout(900)
SCAFFOLD = "Is fall protection required for painters on a 14 ft frame scaffold? They are not erecting it."


@pytest.fixture(scope="module")
def routed(osha_home, shared_dir, tmp_path_factory):
    home = tmp_path_factory.mktemp("router-home")
    copy_home(osha_home, home)
    bf = Bifrost(Settings(home=home, shared_dir=shared_dir))
    try:
        bf.ingest("osh-act")
        report = bf.train_router()
    finally:
        bf.close()
    return home, shared_dir, report


def test_trained_on_the_letters_the_router_is_validated_forward_in_time(routed):
    _, _, report = routed
    assert report.letters > 500 and report.forward["questions"] > 100
    assert report.forward["first_right"] >= 0.95  # letters citing Part 1926: the Act is never their answer


def test_a_construction_question_asked_of_every_rulebook_is_answered_as_part_1926_answers_it(routed):
    home, shared, _ = routed
    bf = Bifrost(Settings(home=home, shared_dir=shared))
    try:
        every, alone = bf.ask(SCAFFOLD), bf.ask(SCAFFOLD, "osha-1926")
    finally:
        bf.close()
    assert [(c.corpus, c.asked) for c in every.routing] == [("osha-1926", True), ("osh-act", False)]
    same = {"timings", "routing", "warnings"}
    assert every.model_dump(exclude=same) == alone.model_dump(exclude=same)  # ids, text, governing, verdict
    # asked beside a rulebook, the answer says how its corpus was ranked (the test home trains no ranker)
    assert every.warnings == [*alone.warnings, *(w for w in every.warnings if "hand-set hybrid" in w)]
