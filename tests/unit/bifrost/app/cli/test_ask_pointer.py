"""`bifrost ask` prints where similar questions were answered under a shortlist or a "not stated" (their
statements are printed, not the answer's text, which holds the pointer); a refusal prints its text instead."""

from __future__ import annotations

import pytest

from bifrost.app.cli.ask_cmd import print_pointer
from bifrost.core.answer_types import Answer, AnswerMode, Elsewhere, Outcome

SAID = "These rules may not decide it. OSHA has answered similar questions under 29 CFR 1910.147."


def answer(outcome: Outcome) -> Answer:
    return Answer(
        question="q",
        corpus="osha-1926",
        mode=AnswerMode.EXTRACTIVE,
        refused=outcome is Outcome.REFUSED,
        outcome=outcome,
        text=f"text\n\n{SAID}",
        elsewhere=Elsewhere(said=SAID),
    )


@pytest.mark.parametrize("outcome", [Outcome.SHORTLIST, Outcome.NOT_STATED])
def test_the_pointer_is_printed_under_an_answer_that_states_no_rule(outcome, capsys):
    print_pointer(answer(outcome))
    assert " ".join(capsys.readouterr().out.split()) == SAID


def test_a_refusal_prints_no_second_pointer(capsys):
    print_pointer(answer(Outcome.REFUSED))
    assert capsys.readouterr().out == ""
