"""One quantity reader for rules and questions: thresholds from the words around a figure, printed conversions
and tolerances left out, ranges read as both ends, number words and fractions, units pint converts."""

from __future__ import annotations

import pytest

from bifrost.core.quantities import quantities


def read(text: str) -> list[tuple[str, float, str]]:
    return [(q.comparator, q.value, q.unit) for q in quantities(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("protected from falling 6 feet (1.8 m) or more to lower levels", [(">=", 6, "foot")]),
        ("more than 15 feet above a lower level", [(">", 15, "foot")]),
        ("not less than 42 inches high", [(">=", 42, "inch")]),
        ("shall not be less than 3 feet (0.912 m)", [(">=", 3, "foot")]),
        ("in no case more than 25 feet below such work surface", [("<=", 25, "foot")]),
        ("within 14 days", [("<=", 14, "day")]),
        ("no later than 30 calendar days after", [("<=", 30, "day")]),
        ("at least once every 12 months", [("<=", 12, "month")]),
        ("for 30 or more days per year", [(">=", 30, "day")]),
        ("shall not exceed 125°", [("<=", 125, "degree")]),
        ("openings not over one inch (2.5 cm)", [("<=", 1, "inch")]),
        ("rated not more than 5kW", [("<=", 5, "kilowatt")]),
        (
            "at or above 73.4 °F (23 °C) and at or below 140 °F (60 °C)",
            [(">=", 73.4, "degF"), ("<=", 140, "degF")],
        ),
        ("a minimum tensile load of 5,000 pounds (22.2 kN)", [(">=", 5000, "pound")]),
        ("not less than 1 1/4 inch (3.175 cm) nominal inside diameter", [(">=", 1.25, "inch")]),
        ("within one-half hour travel time", [("<=", 0.5, "hour")]),
        ("5-10 ppm", [(">=", 5, "ppm"), ("<=", 10, "ppm")]),
        ("cut off 6 ft. 6 in.", [("", 6.5, "foot")]),
        ("rated speeds greater than 600 feet (182.88 m) per minute", [(">", 600, "foot / minute")]),
        ("an application fee of $10,000", [("", 10000, "usd")]),
        ("averaged over an 8-hour day", [("", 8, "hour")]),
        ("100 micrometers (±2 micrometers)", [("", 100, "micrometer")]),
    ],
)
def test_a_figure_reads_with_its_threshold(text, expected):
    assert read(text) == [(c, pytest.approx(v), u) for c, v, u in expected]


@pytest.mark.parametrize(
    "text",
    [
        "29 CFR 1926.451(g)(1)",
        "ANSI A10.3-1970",
        "November 8, 2010",
        "Table E-1",
        "at least two consecutive measurements",
        "one of the following",
    ],
)
def test_citations_dates_and_bare_counts_are_no_quantity(text):
    assert quantities(text) == []


def test_feet_and_metres_compare_and_a_question_figure_meets_a_threshold():
    rule = quantities("5 feet (1.52 m) or more in depth")[0]
    assert rule.meets(quantities("12ft below")[0]) is True
    assert rule.meets(quantities("1 m deep")[0]) is False
    assert rule.meets(quantities("3 days")[0]) is None  # another kind: never compared
