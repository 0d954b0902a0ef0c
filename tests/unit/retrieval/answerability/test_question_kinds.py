"""Question-type detection and fact matching on made-up sentences: each rule has a case that fails
without it (and a near miss that it must not take)."""

from __future__ import annotations

import pytest

from bifrost.retrieval.answerability.question_kinds import (
    Ask,
    Asks,
    detect,
    has_fact,
    has_quantity,
    states_condition,
    strip_citations,
)

LENGTH = frozenset({"length"})
WEIGHT = frozenset({"weight", "multiple"})


@pytest.mark.parametrize(
    "question, kind",
    [
        ("How often must the widget be serviced?", Asks.FREQUENCY),
        ("At what intervals are hoses tested?", Asks.FREQUENCY),
        ("How many times a year is the drill run?", Asks.FREQUENCY),
        ("How long must inspection logs be retained?", Asks.DURATION),
        ("Within how many days must the report be sent?", Asks.DURATION),
        ("For how many years are records kept?", Asks.DURATION),
        ("What is the shelf life of a lanyard?", Asks.DURATION),
        ("Who must approve the lifting plan?", Asks.WHO),
        ("Which person signs the permit?", Asks.WHO),
        ("When must the barrier be installed?", Asks.WHEN),
        ("At what point does the zone end?", Asks.WHEN),
        ("What color are warning flags?", Asks.PROPERTY),
        ("How must gas lines be marked?", Asks.PROPERTY),
        ("Is a permit required for roof work?", Asks.YES_NO),
        ("Can workers ride on the hoist?", Asks.YES_NO),
        ("Stacking trench boxes in trenches.", Asks.OTHER),
        ("Describe the scope of this subpart", Asks.OTHER),
    ],
)
def test_detect_the_kind_of_fact_asked(question, kind):
    assert detect(question).kind is kind


@pytest.mark.parametrize(
    "question, units",
    [
        ("How high must the rail be?", LENGTH),
        ("What force must the rail withstand?", WEIGHT),
        ("How much does a harness cost?", frozenset({"money"})),
        ("What is the maximum noise level allowed?", frozenset({"sound"})),
        ("At what wind speed must lifts stop?", frozenset({"speed"})),
        ("What is the steepest slope allowed?", frozenset({"angle"})),
        ("How many foot-candles are needed in offices?", frozenset({"light"})),
        ("How many anchor bolts must a column have?", frozenset()),  # a count: any number
        ("How many times the load must a rope hold?", frozenset({"multiple"})),
        # the first dimension named wins
        ("What is the maximum trench depth for a Speed Shore shield?", LENGTH),
    ],
)
def test_a_quantity_question_names_its_unit_family(question, units):
    ask = detect(question)
    assert ask.kind is Asks.QUANTITY and ask.units == units


def test_how_long_about_a_thing_is_a_length_not_a_duration():
    assert detect("How long must the lanyard be?") == Ask(Asks.QUANTITY, LENGTH)


def test_a_property_question_names_the_property():
    assert detect("What color are warning flags?").prop == "color"
    assert detect("What material must lifelines be made of?").prop == "material"
    assert detect("What class of helmet is needed?").prop == "type"
    assert detect("What label must a cabinet carry?").prop == "marking"


@pytest.mark.parametrize(
    "text, families, expected",
    [
        ("The rail shall be 42 inches high.", LENGTH, True),
        ("The rail shall be 42 inches high.", WEIGHT, False),
        ("Lines shall hold 5,000 pounds (22.2 kN).", WEIGHT, True),
        ("Each rope shall hold at least 6 times the load.", WEIGHT, True),
        ("Stairs rise between 30° and 50° from horizontal.", frozenset({"angle"}), True),
        ("Slope no steeper than 1½:1 or 4:1.", frozenset({"angle"}), True),
        ("The fee is $250 per inspection.", frozenset({"money"}), True),
        ("Air with less than 19.5 percent oxygen is deficient.", frozenset({"percent"}), True),
        ("Sound level dBA slow response 8 90 6 92", frozenset({"sound"}), True),  # table: unit first
        ("Provide one toilet for every forty workers.", frozenset(), True),  # a count: a bare number word
        ("Comply with paragraph (b)(1) of § 1926.502.", frozenset(), False),  # citations are not numbers
        ("Helmets shall meet ANSI Z89.1-2009.", frozenset(), False),  # nor are standard names
        ("Effective January 1, 1998, belts are not acceptable.", frozenset(), False),  # nor years
        ("The fine is AED 10,000 per breach.", frozenset({"money"}), True),  # money in any currency
        ("The firm shall pay 5,000 dirhams.", frozenset({"money"}), True),
        # ADGM citations
        ("Subject to Rule 6.1.1 and Chapter 3, the firm must notify the Regulator.", frozenset(), False),
    ],
)
def test_quantity_facts_need_a_number_with_a_compatible_unit(text, families, expected):
    assert has_quantity(text, families) is expected


def test_citations_years_and_standard_names_are_stripped_but_decimals_kept():
    clean = strip_citations("less than 19.5 percent per ANSI Z89.1-2009 and § 1926.502(b)(1) since 1998")
    assert "19.5 percent" in clean and "Z89" not in clean and "1926" not in clean and "1998" not in clean


@pytest.mark.parametrize(
    "ask, yes, no",
    [
        (Ask(Asks.FREQUENCY), "Nets shall be inspected at least once a week.", "Nets shall be inspected."),
        (Ask(Asks.FREQUENCY), "Test at intervals not to exceed 3 months.", "Tests shall be recorded."),
        (Ask(Asks.FREQUENCY), "Inspect before each work shift.", "Inspect for visible defects."),
        (
            Ask(Asks.DURATION, frozenset({"time"})),
            "Keep the record for at least thirty (30) years.",
            "Keep the record.",
        ),
        (
            Ask(Asks.DURATION, frozenset({"time"})),
            "Send the report within 48 hours.",
            "Send the report to the office.",
        ),
        (Ask(Asks.YES_NO), "The top step shall not be used as a step.", "The top step is the highest step."),
        (Ask(Asks.YES_NO), "Riding the hook is prohibited.", "Riding the hook happens."),
        (Ask(Asks.WHO), "The plan shall be prepared by a qualified person.", "The plan covers the site."),
        (Ask(Asks.WHO), "A competent person must inspect the trench.", "The trench is inspected daily."),
        (Ask(Asks.WHEN), "Inspect prior to the start of work.", "Inspect the excavation."),
        (
            Ask(Asks.PROPERTY, prop="color"),
            "Danger signs shall have red as the predominating color.",
            "Danger signs shall be legible.",
        ),
        (
            Ask(Asks.PROPERTY, prop="material"),
            "Lanyards shall be made from synthetic fibers.",
            "Lanyards shall be inspected.",
        ),
        (
            Ask(Asks.PROPERTY, prop="marking"),
            "Covers shall be marked with the word “HOLE”.",
            "Covers shall be secured.",
        ),
        (Ask(Asks.PROPERTY, prop="type"), "Use a filter lens of shade 10.", "Use a suitable filter lens."),
    ],
)
def test_each_kind_of_fact_is_found_in_a_sentence_that_states_it(ask, yes, no):
    assert has_fact(yes, ask) and not has_fact(no, ask)


def test_other_questions_have_no_fact_to_match():
    assert not has_fact("The rail shall be 42 inches high.", Ask(Asks.OTHER))


@pytest.mark.parametrize(
    "sentence, ask",
    [
        (
            "Work rests shall be kept not more than one-eighth inch from the wheel.",
            Ask(Asks.QUANTITY, LENGTH),
        ),
        ("Benefits are paid for up to eighteen (18) months.", Ask(Asks.DURATION, frozenset({"time"}))),
    ],
)
def test_numbers_written_as_teens_and_fractions_are_numbers(sentence, ask):
    assert has_fact(sentence, ask)


@pytest.mark.parametrize(
    "sentence, condition",
    [
        ("Only trained employees may enter.", True),
        ("Employees shall not ride the hook.", True),
        ("Except as provided in paragraph (b), nets are required.", True),
        ("Body belts are not acceptable as part of a fall arrest system.", True),
        ("Employees shall wear harnesses.", False),
    ],
)
def test_a_yes_no_condition_is_more_than_a_bare_shall(sentence, condition):
    assert states_condition(sentence) is condition
