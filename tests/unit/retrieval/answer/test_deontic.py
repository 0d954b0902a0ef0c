"""Verdicts the cited text decides: the question's yes/no reading against a rule sentence's modality."""

from __future__ import annotations

import pytest

from bifrost.graph_builders.jurisdictions.registry import words_for
from bifrost.retrieval.answer.deontic import Asked, Decision, decision, read_question, read_rule

LEADING_EDGE = (
    "Can a combination of a warning line system and personal fall arrest system be used for all types of "
    "leading-edge work?"
)
WARNING_LINE_ROOFING = (
    "The use of a warning line system with a personal fall arrest system is permitted only on roofing work "
    "on low-slope roofs."
)


@pytest.mark.parametrize(
    "question, asked",
    [
        (LEADING_EDGE, Asked.PERMISSION),
        ("guys want to skip the harness on the scissor lift, thats fine right", Asked.PERMISSION),
        ("do we need a competent person on site while the trench is open?", Asked.OBLIGATION),
        ("Is a fall protection plan required for precast erection?", Asked.OBLIGATION),
        ("Is it prohibited to ride the hook?", Asked.PROHIBITION),
        ("How far back from the edge does the spoil pile go?", Asked.NONE),
    ],
)
def test_what_a_question_asks(question, asked):
    assert read_question(question).asked is asked


def test_a_claim_over_every_case_and_a_proposed_omission_are_read():
    assert read_question(LEADING_EDGE).every
    assert read_question("Can we just run a warning line with harnesses for all our leading edge work?").every
    assert not read_question("Do we need a harness for the work on the roof?").every
    assert not read_question("Is all of this scaffold work covered by one inspection?").every
    assert read_question("can we skip the tag line on this pick?").omission


def test_a_restriction_answers_no_to_a_claim_over_every_case():
    assert decision(read_question(LEADING_EDGE), read_rule(WARNING_LINE_ROOFING)) is Decision.NO


def test_a_prohibition_answers_no_to_a_permission_question():
    q = read_question("ok to paint our wood scaffold planks orange?")
    assert decision(q, read_rule("Wood platforms shall not be covered with opaque finishes.")) is Decision.NO


def test_a_duty_answers_no_to_a_proposed_omission_and_yes_to_a_duty_question():
    duty = read_rule("Each employee shall be protected from falling by guardrail systems.")
    assert decision(read_question("can my guys skip the guardrail on the deck?"), duty) is Decision.NO
    assert decision(read_question("do we need guardrails on the deck?"), duty) is Decision.YES


def test_need_not_answers_no_to_a_duty_question():
    rule = read_rule("Guardrail systems need not be provided at the point of access.")
    assert decision(read_question("do we need a guardrail at the ladder opening?"), rule) is Decision.NO


@pytest.mark.parametrize(
    "sentence",
    [
        "Guardrail systems need not be provided when the employer can demonstrate that their use is "
        "infeasible.",
        "Protector gloves need not be worn with Class 0 gloves, under limited-use conditions, where small "
        "equipment is handled.",
        "Ground-fault circuit interrupters are not required unless the generator supplies more than one "
        "receptacle.",
    ],
)
def test_a_conditional_need_not_makes_a_duty_depend_never_a_flat_no(sentence):
    assert decision(read_question("do we need it here?"), read_rule(sentence)) is Decision.DEPENDS


def test_a_power_of_the_regulator_is_no_permission_to_the_firm_in_adgm():
    q, adgm = read_question("Can we extend the reporting period?"), words_for("adgm")
    assert (
        decision(q, read_rule("The Regulator may extend the period for the submission of a report.", adgm))
        is None
    )
    assert (
        decision(q, read_rule("An Authorised Person may extend the period by one month.", adgm))
        is Decision.YES
    )
    assert (
        decision(q, read_rule("The Assistant Secretary may extend the period.", words_for("osha-1926")))
        is None
    )


def test_an_exception_makes_a_duty_depend():
    rule = read_rule(
        "Each employee shall be protected by guardrail systems unless the work is of short duration."
    )
    assert decision(read_question("do we need guardrails for this?"), rule) is Decision.DEPENDS


def test_no_verdict_when_the_rule_does_not_decide_or_the_question_is_not_yes_no():
    assert (
        decision(
            read_question("How high must the top rail be?"),
            read_rule("The top rail shall be 42 inches high."),
        )
        is None
    )
    assert (
        decision(read_question("can we use the lift?"), read_rule("The lift is described in Appendix A."))
        is None
    )


def test_a_verdicts_reason_names_what_the_sentence_does_and_the_condition_it_states():
    from bifrost.retrieval.answer.deontic import Decision, because, condition_of

    permission = read_question("Is it ok to use a ladder near power lines?")
    duty = read_question("Do we need a competent person to inspect the excavation?")
    banned = "Ladders shall not be used near power lines when wet."
    assert because(permission, read_rule(banned), Decision.NO, banned) == "prohibits it when wet"
    assert because(duty, read_rule("Inspections shall be made daily."), Decision.YES) == "requires it"
    assert because(duty, read_rule("A plan need not be written."), Decision.NO) == "does not require it"
    assert condition_of("Rails shall be provided.") == ""
    long = "Rails shall be provided unless " + ", ".join(["the employer shows another means"] * 8) + "."
    assert len(condition_of(long)) <= 140 and condition_of(long).startswith("unless the employer")


@pytest.mark.parametrize(
    "question",
    [
        "caught a guy climbing the back side of the stepladder. is that a violation",
        "Crew brought 2-prong cords from the store. OK on site?",
        "painter set a step ladder on the scaffold deck. allowed or not?",
        "does subpart M apply to the owner's rep walking the roof",
        "GC says the sub is on its own for fall protection. true?",
        "As the GC is that on us?",
    ],
)
def test_a_polar_question_in_plain_words_is_one(question):
    assert read_question(question).answerable_yes_no


@pytest.mark.parametrize(
    "question",
    [
        "what shade lens for stick welding?",
        "do we go by the aerial lift rule or is there something different for linemen?",
        "Hanging grounds on the line -- what's the order?",
    ],
)
def test_a_wh_or_alternative_question_is_not_polar(question):
    assert not read_question(question).polar
