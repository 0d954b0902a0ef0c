"""Figures in questions and rules, read with pint: their kind, size in base units, and threshold."""

from __future__ import annotations

import pytest

from bifrost.retrieval.answer.quantities import figures_fit, quantities


@pytest.mark.parametrize(
    "text, comparator",
    [
        ("5 feet (1.52 m) or more in depth", ">="),
        ("rated not more than 5kW", "<="),
        ("more than 10 feet (3.1 m) above a lower level", ">"),
        ("not less than 42 inches", ">="),
        ("within 14 days", "<="),
        ("less than 6 feet", "<"),
        ("a 12ft trench", ""),
    ],
)
def test_a_threshold_is_read_with_its_comparator(text, comparator):
    assert quantities(text)[0].comparator == comparator


def test_feet_and_metres_are_one_kind_and_people_write_units_loosely():
    feet, metres, mark = quantities("12ft")[0], quantities("3.66 m")[0], quantities("12′ below")[0]
    assert feet.dimension == metres.dimension == mark.dimension and feet.same(metres) and feet.same(mark)
    low, high = quantities("a 2,000-14,000LBS forklift")  # a range: both ends, each with its side
    assert (low.comparator, high.comparator) == (">=", "<=")
    assert (low.magnitude, high.magnitude) == (
        pytest.approx(907.18, rel=1e-3),
        pytest.approx(6350.29, rel=1e-3),
    )


def test_a_figure_without_a_unit_pint_knows_is_never_compared():
    assert quantities("3 widgets and 4 sides") == []
    assert figures_fit("are 3 widgets enough?", "Employers shall provide widgets.")


@pytest.mark.parametrize(
    "question, fits",
    [
        ("a 3 kW generator", True),
        ("a 7 kW generator", False),
        ("a 5 kW generator", True),
        ("a generator", True),
        ("a 5 foot generator", False),
    ],
)
def test_a_figure_fits_a_rule_only_when_it_meets_a_threshold_of_its_kind(question, fits):
    assert figures_fit(question, "Generators rated not more than 5kW need not be protected.") is fits
