"""Editions through the facade: with no date and with today's date a question is answered from the same
edition, the one valid today, even when an older-dated edition was ingested last (``--allow-older``)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.editions_fixture import MINI_PLAN, make_edition_b
from tests.unit.mini_corpus import MINI

A, B, OLDER = "2024-01-01", "2025-01-01", "2024-06-01"
PLAN = "Who shall prepare the fall protection plan?"
REPEALED = "1926.502(b)(1)"  # in A, reserved in B


@pytest.fixture(scope="module")
def bf(tmp_path_factory):
    """Edition 1 = A, edition 2 = B (valid today), edition 3 = A again dated between them: the
    provisions table holds edition 3, the edition valid today is 2."""
    root = tmp_path_factory.mktemp("facade-editions")
    b = root / MINI.name
    b.write_text(json.dumps(make_edition_b(json.loads(MINI.read_text()), MINI_PLAN)))
    bf = Bifrost(Settings(home=root / "home"))
    for source, when in ((MINI, A), (b, B)):
        assert bf.ingest("mini", [source], date=when).files_ok
        bf.build_navigator("mini")
    bf.build_entities("mini", "offline")
    assert bf.ingest("mini", [MINI], date=OLDER, allow_older=True).edition.number == 3
    bf.build_navigator("mini")
    yield bf
    bf.close()


def test_a_question_with_no_date_and_as_of_today_is_answered_from_the_edition_valid_today(bf):
    plain, today = bf.ask(PLAN, "mini"), bf.ask(PLAN, "mini", as_of=date.today().isoformat())
    assert plain.model_dump(exclude={"timings"}) == today.model_dump(exclude={"timings"})
    assert plain.edition is not None and (plain.edition.number, plain.edition.date) == (2, B)
    then = {p.id for p in bf.sql.provisions_at("mini", 2)}
    assert REPEALED not in then and {c.id for c in plain.citations} <= then


def test_the_current_edition_is_the_one_valid_today(bf):
    assert bf.edition("mini").number == 2
    assert bf.sql.edition("mini").number == 3  # the provisions table's: the last recorded


def test_eight_digits_are_a_compact_date_and_a_small_integer_an_edition_number(bf):
    assert bf.edition("mini", "20240701").number == 3  # valid on 2024-07-01: edition 3, dated 2024-06-01
    assert bf.edition("mini", "2").number == 2 and bf.edition("mini", 1).number == 1
