"""The decision step: the governing rule is the candidate the selector is surest of, a second rule is cited
only when the selector is as sure of it, a verdict names the rule and the question's fact that decides it,
"depends" names the rule's open condition in its words (or is not given), and the conditions shown are those
the question's facts bear on."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.requirements.read import read_sentence
from bifrost.retrieval.answer.compose import verdict_line
from bifrost.retrieval.answer.decision import Inputs, clause_of, decide
from bifrost.retrieval.answer.decision_model import DecisionCard, DecisionModel, calibrated
from bifrost.retrieval.answer.governing import FEATURES, named_row
from bifrost.retrieval.answer.question_facts import read_facts
from bifrost.retrieval.answer.verdict_features import VERDICT_FEATURES
from bifrost.retrieval.navigator import NavigatorIndex
from bifrost.retrieval.ranking.ltr.features import FEATURES as RANKER_FEATURES

SCAFFOLD = (
    "Each employee on a scaffold more than 10 feet (3.1 m) above a lower level shall be protected from "
    "falling to that lower level."
)
ERECTORS = (
    "Each employee erecting or dismantling supported scaffolds shall be protected when the installation of "
    "fall protection is feasible."
)
GENERATOR = (
    "Receptacles on a portable generator rated not more than 5 kW need not be protected with ground-fault "
    "circuit interrupters."
)
TEXTS = {
    "1926.451": "",
    "1926.451(g)(1)": SCAFFOLD,
    "1926.451(g)(2)": ERECTORS,
    "1926.404(b)(1)(ii)": GENERATOR,
}


def tokenize(text: str) -> list[str]:
    return [w for w in "".join(ch.lower() if ch.isalnum() else " " for ch in text).split() if len(w) > 3]


def provision(pid: str) -> Provision:
    parent = None if pid in ("1926.451", "1926.404(b)(1)(ii)") else "1926.451"
    kind = ProvisionKind.SECTION if pid == "1926.451" else ProvisionKind.PARAGRAPH
    return Provision(corpus="c", id=pid, parent_id=parent, kind=kind, heading="Scaffolds", text=TEXTS[pid])


NAV = NavigatorIndex.build(
    [provision(pid) for pid in TEXTS],
    [],
    [r for pid, t in TEXTS.items() if t and (r := read_sentence("c", pid, 0, t)) is not None],
)


class Margins:
    """A fake booster: the margin of each row is the value of one column (the selector's `score`, or a
    verdict row's `gov_prob`), scaled."""

    def __init__(self, column: int, scale: float = 1.0) -> None:
        self.column, self.scale = column, scale

    def predict(self, x, raw_score=False, num_threads=1):
        return np.asarray(x)[:, self.column] * self.scale


def model(
    cite_also: float = 1.1, verdicts: dict[str, float] | None = None, state_bar: float | None = 0.0
) -> DecisionModel:
    card = DecisionCard(
        state_bar=state_bar,
        corpus="c",
        ranker_sha256="r",
        features=list(FEATURES),
        verdict_features=list(VERDICT_FEATURES),
        calibration={"x": [0.0, 1.0], "y": [0.0, 1.0]},
        cite_also=cite_also,
        verdict_margins=verdicts or {},
    )
    gov_prob = VERDICT_FEATURES.index("gov_prob")
    boosters = {kind: Margins(gov_prob) for kind in (verdicts or {})}
    return DecisionModel(Margins(FEATURES.index("score")), boosters, card)


def inputs(question: str, ranked: list[tuple[str, float]]) -> Inputs:
    ids = [pid for pid, _ in ranked]
    return Inputs(
        question=question,
        ids=ids,
        scores=np.array([s for _, s in ranked]),
        ranker_rows=np.vstack([np.zeros(len(RANKER_FEATURES), dtype=np.float32) for _ in ids]),
        facts=read_facts(question),
        asks=(frozenset({"scaffold"}),),
        nav=NAV,
        tokenize=tokenize,
        lookup=lambda pid: provision(pid) if pid in TEXTS else None,
    )


QUESTION = "Is fall protection required for painters on a 14 ft frame scaffold? They are not erecting it."


def test_the_governing_rule_is_the_surest_candidate_with_text_and_is_cited_alone():
    got = decide(
        inputs(QUESTION, [("1926.451", 0.99), ("1926.451(g)(1)", 0.9), ("1926.451(g)(2)", 0.5)]), model()
    )
    assert got.cited == ["1926.451(g)(1)"]  # the section heading states nothing to quote
    assert [g.id for g in got.governing] == ["1926.451(g)(1)"]
    assert got.governing[0].probability == pytest.approx(0.9)
    assert got.related == ["1926.451", "1926.451(g)(2)"]


def test_a_second_rule_is_cited_only_when_the_selector_is_as_sure_of_it():
    ranked = [("1926.451(g)(1)", 0.9), ("1926.451(g)(2)", 0.7)]
    assert decide(inputs(QUESTION, ranked), model(cite_also=0.8)).cited == ["1926.451(g)(1)"]
    assert decide(inputs(QUESTION, ranked), model(cite_also=0.6)).cited == [
        "1926.451(g)(1)",
        "1926.451(g)(2)",
    ]


def test_a_yes_names_the_rule_and_the_questions_fact_that_meets_its_condition():
    got = decide(inputs(QUESTION, [("1926.451(g)(1)", 0.95)]), model(verdicts={"yes": 0.5}))
    assert got.verdict.value == "yes"
    assert got.verdict.provision_id == "1926.451(g)(1)"
    assert got.verdict.words == SCAFFOLD
    line = verdict_line(got.verdict)
    assert line.startswith("Yes: 1926.451(g)(1) (Scaffolds) requires it") and "you said 14 ft" in line
    assert [(c.status, c.fact) for c in got.checks] == [("met", "14 ft")]


def test_depends_names_the_open_condition_in_the_rules_words():
    q = "Do we need fall protection for painters on a frame scaffold?"
    got = decide(inputs(q, [("1926.451(g)(1)", 0.95)]), model(verdicts={"depends": 0.5}))
    assert got.verdict.value == "depends"
    assert verdict_line(got.verdict).startswith(
        "Depends on more than 10 feet (3.1 m) above a lower level: 1926.451(g)(1) (Scaffolds) turns on it"
    )
    assert [c.status for c in got.checks] == ["not_stated"]  # the condition the verdict turns on is shown


def test_no_depends_when_the_rule_states_no_open_condition_and_no_verdict_below_every_margin():
    q = "Do painters on a scaffold need to be protected from falling when erecting it?"
    assert decide(inputs(q, [("1926.451(g)(2)", 0.95)]), model(verdicts={"depends": 0.5})).verdict is None
    assert decide(inputs(QUESTION, [("1926.451(g)(1)", 0.4)]), model(verdicts={"yes": 0.5})).verdict is None


def test_a_question_that_is_not_yes_no_gets_no_verdict():
    q = "What fall protection do painters on a 14 ft scaffold need?"
    assert decide(inputs(q, [("1926.451(g)(1)", 0.95)]), model(verdicts={"yes": 0.1})).verdict is None


def test_conditions_the_facts_do_not_bear_on_are_not_shown_without_a_depends():
    q = "Is fall protection required for painters on a frame scaffold?"
    assert decide(inputs(q, [("1926.451(g)(1)", 0.95)]), model()).checks == []


def test_a_named_provision_the_ranker_did_not_score_reads_as_named():
    row = named_row()
    assert row[RANKER_FEATURES.index("named_exact")] == 1.0 and row.sum() == 2.0


def test_a_condition_is_quoted_in_its_clause():
    assert clause_of(SCAFFOLD, "10 feet (3.1 m)") == "more than 10 feet (3.1 m) above a lower level"
    assert clause_of("Rails, where used, shall be 42 inches high.", "42 inches") == "shall be 42 inches high"


def test_calibration_maps_margins_through_its_knots():
    assert calibrated(np.array([-1.0, 0.5, 3.0]), {"x": [0.0, 1.0], "y": [0.2, 0.8]}).tolist() == [
        0.2,
        0.5,
        0.8,
    ]


def test_a_rule_about_an_activity_the_question_sets_aside_never_governs_while_another_is_left():
    q = "Is fall protection required for painters on a 14 ft scaffold? They are not erecting it."
    got = decide(inputs(q, [("1926.451(g)(2)", 0.95), ("1926.451(g)(1)", 0.9)]), model())
    assert got.cited[0] == "1926.451(g)(1)" and "1926.451(g)(2)" not in got.cited


def test_below_the_bar_no_rule_is_stated_the_likeliest_are_shortlisted_with_their_sentences():
    ranked = [("1926.451(g)(2)", 0.6), ("1926.451(g)(1)", 0.5), ("1926.404(b)(1)(ii)", 0.3)]
    got = decide(inputs(QUESTION, ranked), model(state_bar=0.7, verdicts={"yes": 0.1}))
    assert not got.stated and got.governing == [] and got.cited == [] and got.verdict is None
    # the rule about erecting, which the question sets aside, comes last; every entry says how likely it is
    assert [pid for pid, _p, _s in got.shortlist] == [
        "1926.451(g)(1)",
        "1926.404(b)(1)(ii)",
        "1926.451(g)(2)",
    ]
    assert [round(p, 2) for _pid, p, _s in got.shortlist] == [0.5, 0.3, 0.6]
    assert got.shortlist[0][2] == SCAFFOLD  # its requirement's sentence


def test_at_the_bar_the_rule_is_stated_and_a_card_without_a_bar_states_every_rule():
    ranked = [("1926.451(g)(1)", 0.75)]
    assert decide(inputs(QUESTION, ranked), model(state_bar=0.75)).cited == ["1926.451(g)(1)"]
    assert decide(inputs(QUESTION, [("1926.451(g)(1)", 0.1)]), model(state_bar=None)).stated


def test_a_sure_enough_section_lists_its_paragraphs_first_and_named_provisions_lead_always():
    from dataclasses import replace

    ranked = [("1926.451(g)(1)", 0.5), ("1926.404(b)(1)(ii)", 0.45), ("1926.451(g)(2)", 0.4)]
    q = "What fall protection do painters need?"
    low_bar = decide(inputs(q, ranked), model(state_bar=0.8))  # 0.5 + 0.4 in 1926.451 reach 0.8
    assert [pid for pid, *_ in low_bar.shortlist][:2] == ["1926.451(g)(1)", "1926.451(g)(2)"]
    high_bar = decide(inputs(q, ranked), model(state_bar=0.95))  # the section is not sure enough
    assert [pid for pid, *_ in high_bar.shortlist][:2] == ["1926.451(g)(1)", "1926.404(b)(1)(ii)"]
    named = decide(replace(inputs(q, ranked), named=("1926.451(g)(2)",)), model(state_bar=0.95))
    assert named.shortlist[0][0] == "1926.451(g)(2)"


def test_a_provision_the_question_names_governs_or_leads_the_shortlist_whatever_the_selector_prefers():
    from dataclasses import replace

    ranked = [("1926.451(g)(2)", 0.9), ("1926.451(g)(1)", 0.8)]
    q = "what does 1926.451(g)(1) say about scaffold fall protection"
    named = replace(inputs(q, ranked), named=("1926.451(g)(1)",))
    assert decide(named, model(state_bar=0.5)).cited[0] == "1926.451(g)(1)"
    low = decide(named, model(state_bar=0.85))  # its own probability (0.8) is below the bar: not stated
    assert not low.stated and low.shortlist[0][0] == "1926.451(g)(1)"
