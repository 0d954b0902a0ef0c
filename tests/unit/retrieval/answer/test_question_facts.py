"""The question read once: stance, the kind of fact asked, figures with what they measure, and the activities
it rules out; a rule about an activity the question rules out is not cited as the rule while another rule is
left."""

from __future__ import annotations

from bifrost.retrieval.answer.base import Planned, Role
from bifrost.retrieval.answer.question_facts import excluded_activities, facts_of, read_facts
from bifrost.retrieval.answer.planner import without_excluded


def test_a_question_is_read_into_its_facts():
    f = read_facts("Do we need a trench box when the trench is 12ft below grade?")
    assert f.stance.is_yes_no
    ((figure, measure),) = f.figures
    assert (figure.value, figure.unit, measure) == (12, "foot", "depth")


def test_the_facts_read_at_the_start_are_reused_only_for_the_same_question():
    first = read_facts("Is a guardrail required?")
    assert facts_of(first, "Is a guardrail required?") is first
    assert facts_of(first, "Is a net required?").text == "Is a net required?"


def test_the_activities_a_question_rules_out():
    assert excluded_activities("using scaffolds as a work platform, not erecting or dismantling them") == (
        "erecting",
        "dismantling",
    )
    assert excluded_activities("other than welding, which hot work needs a permit?") == ("welding",)
    assert excluded_activities("When is fall protection required on scaffolds?") == ()
    # the situation asked about
    assert excluded_activities("What happens if an employee is not tying off?") == ()


def tokenize(text: str) -> list[str]:
    return text.lower().replace(",", " ").replace(".", " ").split()


TEXT = {
    "erect": "The employer shall have a competent person determine fall protection for employees erecting "
    "or dismantling scaffolds.",
    "use": "Each employee on a scaffold more than 10 feet above a lower level shall be protected from "
    "falling.",
}


def test_a_rule_about_an_excluded_activity_is_not_cited_as_the_rule():
    planned = [
        Planned("erect", Role.RULE, ("erect",), "ranked 1"),
        Planned("use", Role.RULE, ("use",), "ranked 2"),
    ]
    kept = without_excluded(planned, ("erecting", "dismantling"), TEXT.get, tokenize)
    assert [p.id for p in kept] == ["use"]


def test_the_only_rule_stays_even_when_excluded():
    planned = [Planned("erect", Role.RULE, ("erect",), "ranked 1")]
    assert without_excluded(planned, ("erecting",), TEXT.get, tokenize) == planned


def test_figures_the_retriever_read_are_not_read_again():
    question = "Is a guardrail needed 12 ft above the ground?"
    read = read_facts(question)
    assert [q.text for q, _ in read.figures] == ["12 ft"]
    assert read_facts(question, figures=()).figures == ()  # taken as given
    assert read_facts(question, figures=read.figures) == read
