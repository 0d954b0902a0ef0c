"""A rule sentence read into its force, who it binds, its quantity conditions and its exceptions; a sentence
with no modal gives no record."""

from __future__ import annotations

import pytest

from bifrost.graph_builders.requirements.read import read_sentence


def read(text: str):
    return read_sentence("c", "1.1", 0, text)


@pytest.mark.parametrize(
    ("text", "force"),
    [
        ("The employer shall provide training.", "must"),
        ("Guy derricks must not be used unless the employer has the information.", "must_not"),
        ("No employee shall be permitted to enter until examined.", "must_not"),
        ("The control line may be used in lieu of a guardrail.", "may"),
        ("Such apparatus need not be grounded.", "need_not"),
        ("Working space is not required in back of assemblies.", "not_required"),
        ("Section 1926.1402 does not apply to cranes designed for use on railroad tracks.", "does_not_apply"),
    ],
)
def test_the_force_is_the_modal_the_sentence_states(text, force):
    assert read(text).force == force


def test_who_is_the_role_named_before_the_modal():
    assert read("The competent person shall inspect the trench daily.").who == "competent person"
    assert read("An Authorised Person must keep records for six years.").who == "authorised person"


def test_conditions_carry_their_threshold_and_what_they_measure():
    req = read(
        "Each employee on a walking/working surface with an unprotected side or edge which is 6 feet "
        "(1.8 m) or more above a lower level shall be protected from falling."
    )
    (cond,) = req.conditions
    assert (cond.comparator, cond.value, cond.unit, cond.measure) == (">=", 6, "foot", "height")


def test_the_portable_generator_exception_is_read_with_its_kilowatt_threshold():
    req = read(
        "The frame of a portable generator need not be grounded and may serve as the grounding electrode "
        "for a system supplied by the generator under the following conditions, except that receptacles "
        "on a two-wire, single-phase portable generator rated not more than 5 kW need not be protected."
    )
    assert [(c.comparator, c.value, c.unit) for c in req.conditions] == [("<=", 5, "kilowatt")]
    assert {e.cue for e in req.exceptions} == {"except", "need not"}


@pytest.mark.parametrize(
    ("text", "cue", "kind"),
    [
        (
            "Except as provided in paragraph (b) of this section, each scaffold shall be capable of "
            "supporting its load.",
            "except",
            "reference",
        ),
        ("Subject to Rule 3.2, an Insurer must calculate the requirement.", "subject to", "reference"),
        ("Subject to 3.2.3, an Authorised Person must comply.", "subject to", "reference"),
        (
            "Mechanical ventilation shall be provided except when natural ventilation is sufficient.",
            "except",
            "inline",
        ),
        ("Tanks, other than crude oil tanks, shall be vented.", "other than", "inline"),
    ],
)
def test_exceptions_inline_and_by_reference(text, cue, kind):
    (exc,) = read(text).exceptions
    assert (exc.cue, exc.kind) == (cue, kind) and exc.text


def test_words_that_are_not_exceptions_are_not_read_as_one():
    assert read("A Direction may be given subject to conditions.").exceptions == ()
    assert (
        read("Fencing shall be provided to prevent access of other than authorized personnel.").exceptions
        == ()
    )


def test_a_sentence_without_a_modal_gives_no_record():
    assert read("Scaffold means any temporary elevated platform.") is None
