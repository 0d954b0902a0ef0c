"""Which edition "current", a date and a number name: the current one is the edition valid today,
whatever order the editions were recorded in (``ingest --allow-older``)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bifrost.core.errors import ConfigError
from bifrost.core.store.editions import next_edition, record_edition, resolve
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Edition

C = "eds"
TODAY = date.today().isoformat()
LATER = (date.today() + timedelta(days=400)).isoformat()


@pytest.fixture
def store(tmp_path):
    st = SqlStore(f"sqlite:///{tmp_path / 'e.db'}")
    yield st
    st.dispose()


def record(store: SqlStore, *dated: tuple[int, str | None]) -> None:
    with store.session() as s:
        for number, when in dated:
            record_edition(s, Edition(corpus=C, number=number, date=when))


def current(store: SqlStore) -> int:
    with store.session() as s:
        return resolve(s, C).number


def test_current_edition_is_the_one_valid_today(store):
    # 3: an older edition recorded later
    record(store, (1, "2024-01-01"), (2, "2025-01-01"), (3, "2024-06-01"))
    with store.session() as s:
        today = resolve(s, C, as_of=TODAY).number
    assert current(store) == today == 2
    assert store.edition(C).number == 3  # what the provisions table holds: the last recorded


def test_an_edition_dated_after_today_is_not_current_and_a_tie_goes_to_the_higher_number(store):
    record(store, (1, "2024-01-01"), (2, "2024-01-01"), (3, LATER))
    assert current(store) == 2


def test_undated_editions_count_as_valid_from_the_start(store):
    record(store, (1, None), (2, None), (3, "2024-01-01"))
    assert current(store) == 3
    with store.session() as s:
        assert resolve(s, C, as_of="2023-01-01").number == 2


def test_with_no_edition_in_force_yet_the_current_one_is_the_first_to_come_into_force(store):
    record(store, (1, LATER), (2, (date.today() + timedelta(days=800)).isoformat()))
    assert current(store) == 1


def test_an_edition_older_than_the_current_one_is_refused_even_when_an_older_one_was_recorded_last(store):
    record(store, (1, "2024-01-01"), (2, "2025-01-01"), (3, "2024-06-01"))
    with (
        store.session() as s,
        pytest.raises(ConfigError, match="older than its current edition 2 \\(2025-01-01\\)"),
    ):
        next_edition(s, C, "2024-09-01")
    with store.session() as s:
        assert next_edition(s, C, "2024-09-01", allow_older=True) == 4


@pytest.mark.parametrize(
    "spec, named",
    [
        (2, (2, None)),
        ("2", (2, None)),
        (" 12 ", (12, None)),
        ("20250101", (None, "2025-01-01")),
        ("2025-01-01", (None, "2025-01-01")),
    ],
)
def test_small_integers_name_edition_numbers_and_eight_digits_a_compact_date(spec, named):
    from bifrost.core.store.editions import edition_spec

    assert edition_spec(spec) == named


def test_a_bad_date_is_a_one_line_error():
    from bifrost.core.store.editions import edition_spec

    with pytest.raises(ConfigError, match="'20251399' is not a date"):
        edition_spec("20251399")
