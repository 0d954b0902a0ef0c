"""Entity names normalize to one canonical surface: singular head, split CamelCase, lowercase."""

import pytest

from bifrost.graph_builders.entities.normalize import (
    SpacyHeadLemmatizer,
    head_index,
    is_acronym,
    normalize_name,
    singularize,
    split_camel_case,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Guardrail Systems", "guardrail system"),
        ("guardrail systems", "guardrail system"),
        ("ExcavationWork", "excavation work"),
        ("OSHA standards", "OSHA standard"),
        ("ANSI Z89.1", "ANSI Z89.1"),
        ('the  "competent"   person', "competent person"),
        ("walking/working surfaces", "walking/working surface"),
        ("top_rails", "top rail"),
        ("Scaffold's planks", "scaffold plank"),
        ("Protection of employees", "protection of employees"),
        ("hazards,", "hazard"),
        ("PPE", "PPE"),
    ],
)
def test_normalize_name(raw, expected):
    assert normalize_name(raw) == expected


def test_proper_noun_labels_keep_capitals_and_number():
    assert normalize_name("Coast Guard", "ORG") == "Coast Guard"
    assert normalize_name("Coast Guard", "concept") == "coast guard"


def test_normalization_is_idempotent():
    for raw in ["Guardrail Systems", "ExcavationWork", "safety glasses", "OSHA standards", "lifelines"]:
        once = normalize_name(raw)
        assert normalize_name(once) == once


def test_punctuation_only_normalizes_to_empty():
    assert normalize_name(" -- , ") == ""


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("systems", "system"),
        ("ladders", "ladder"),
        ("boxes", "box"),
        ("benches", "bench"),
        ("stairways", "stairway"),
        ("assemblies", "assembly"),
        ("feet", "foot"),
        ("gases", "gas"),
        ("glasses", "glasses"),
        ("series", "series"),
        ("truss", "truss"),
        ("status", "status"),
        ("analyses", "analysis"),
        ("criteria", "criterion"),
        ("lanyards", "lanyard"),
    ],
)
def test_singularize(plural, singular):
    assert singularize(plural) == singular


def test_split_camel_case_keeps_acronyms_whole():
    assert split_camel_case("OSHAStandard") == "OSHA Standard"
    assert split_camel_case("fallArrestSystem") == "fall Arrest System"


def test_is_acronym():
    assert is_acronym("OSHA") and is_acronym("Z89.1") and not is_acronym("Osha") and not is_acronym("A")


def test_head_is_last_word_before_a_postmodifying_preposition():
    assert head_index("protection of employees".split()) == 0
    assert head_index("personal fall arrest systems".split()) == 3


def test_spacy_head_lemmatizer_plugs_into_normalize():
    lemmatize = SpacyHeadLemmatizer()
    assert normalize_name("Guardrail Systems", lemmatize_head=lemmatize) == "guardrail system"
    assert normalize_name("safety nets", lemmatize_head=lemmatize) == "safety net"
