"""Support-scorer training examples: gold provisions are positives, look-alikes are hard negatives."""

from __future__ import annotations

from bifrost.retrieval.answerability.support.examples import LabelledQuestion, support_examples

DOCS = {
    "a": "Guardrail systems shall be capable of withstanding a force of at least 200 pounds.",
    "a1": "at least 200 pounds",  # held by a gold text: never a negative
    "b": "Safety net systems shall be inspected at least once a week for wear and damage.",
    "c": "Personal fall arrest systems shall limit the maximum arresting force to 1,800 pounds.",
    "d": "x",  # too short to read
}


def ranked(_question: str) -> list[str]:
    return ["a", "a1", "d", "b", "c"]


def test_an_answerable_question_has_its_gold_as_positive_and_the_best_look_alikes_as_negatives():
    out = support_examples(
        [LabelledQuestion("how strong does the top rail need to be", ("a",))], ranked, DOCS, negatives=1
    )
    assert [(e.text, e.label) for e in out] == [(DOCS["a"], 1.0), (DOCS["b"], 0.0)]


def test_an_unanswerable_question_gives_only_negatives():
    out = support_examples([LabelledQuestion("what does a harness cost")], ranked, DOCS, negatives=2)
    assert {e.label for e in out} == {0.0} and [e.text for e in out] == [DOCS["a"], DOCS["a1"]]


def test_a_pair_is_never_repeated():
    q = LabelledQuestion("how strong does the top rail need to be", ("a", "a"))
    out = support_examples([q, q], ranked, DOCS, negatives=1)
    assert len(out) == len({(e.question, e.text) for e in out}) == 2
