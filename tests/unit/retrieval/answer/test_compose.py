"""The offline answer from a plan: the verdict first when the cited text decides it, then statements by
role (rules, exceptions, conditions, procedures, definitions), each a verified quote; no verdict when no
sentence decides it."""

from __future__ import annotations

import re

import numpy as np

from bifrost.core.types import Provision, ProvisionKind
from bifrost.graph_builders.jurisdictions.registry import words_for
from bifrost.retrieval.answer.compose import compose
from bifrost.retrieval.answer.verdict_rules import decide, scoped_elsewhere
from bifrost.retrieval.answer.extractive import render
from bifrost.retrieval.answer.base import Planned, Role

TEXT = {
    "r10": "Each employee engaged in roofing activities on low-slope roofs shall be protected by a warning "
    "line system "
    "and personal fall arrest system.",
    "r2": "Each employee who is constructing a leading edge shall be protected by guardrail systems, safety "
    "net systems, "
    "or personal fall arrest systems.",
    "k": "The fall protection plan shall be prepared by a qualified person.",
    "ban": "Wood platforms shall not be covered with opaque finishes.",
    "duty": "Each employee on a walking surface with an unprotected edge shall be protected by guardrail "
    "systems "
    "unless the employer demonstrates that another means protects them.",
    "access": "Guardrail systems need not be provided at the point of access to an unprotected edge of a "
    "walking surface.",
}
P = {pid: Provision(corpus="c", id=pid, kind=ProvisionKind.PARAGRAPH, text=t) for pid, t in TEXT.items()}


class WordEmbedder:
    def embed(self, texts):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hash(word) % 64] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def tokenize(text: str) -> list[str]:
    return [w.rstrip("s") for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3]


def planned(*items: tuple[str, Role]) -> list[Planned]:
    return [Planned(pid, role, (pid,), "") for pid, role in items]


LEADING = (
    "Can a warning line system and personal fall arrest system be used for all types of leading edge work?"
)
# specific terms only, as the planner keeps
ASKS = [frozenset(tokenize(a)) for a in ("warning line", "personal fall arrest", "leading edge")]


def test_a_rule_that_grants_a_claim_for_one_case_only_answers_no_to_every_case():
    got = decide(LEADING, planned(("r10", Role.RULE), ("r2", Role.RULE)), P.get, ASKS, tokenize)
    assert got is not None and got.value == "no" and got.provision_id == "r10" and got.words == TEXT["r10"]


def test_no_no_over_every_case_when_another_sentence_of_the_plan_grants_the_whole_claim():
    whole = Provision(
        corpus="c",
        id="all",
        kind=ProvisionKind.PARAGRAPH,
        text="A warning line system and personal fall arrest system may be used for leading edge work.",
    )
    lookup = {**P, "all": whole}.get
    got = decide(
        LEADING, planned(("r10", Role.RULE), ("r2", Role.RULE), ("all", Role.RULE)), lookup, ASKS, tokenize
    )
    assert got is not None and (got.value, got.provision_id) == ("yes", "all")


def test_a_prohibition_about_the_question_answers_no():
    q = "ok to cover our wood platforms with opaque orange paint?"
    got = decide(
        q, planned(("ban", Role.RULE)), P.get, [frozenset(tokenize("wood platforms opaque paint"))], tokenize
    )
    assert got is not None and got.value == "no"


GUARDRAIL_ASKS = [frozenset(tokenize("guardrail")), frozenset(tokenize("unprotected edge"))]


def test_an_exception_never_overrules_a_rule_that_makes_the_answer_depend():
    q = "do we need guardrails at the unprotected edge here?"
    plan = planned(("duty", Role.RULE), ("access", Role.EXCEPTION))
    assert decide(q, plan, P.get, GUARDRAIL_ASKS, tokenize) is None
    got = decide(q, planned(("access", Role.EXCEPTION)), P.get, GUARDRAIL_ASKS, tokenize)
    assert got is not None and got.value == "no"  # the exception alone, unconditional, does answer


def test_a_short_question_can_get_a_verdict_and_none_comes_without_a_relevance_check():
    q = "ok to use opaque finishes?"
    short = [frozenset(tokenize("opaque finishes"))]  # two specific terms: a sentence must hold both
    got = decide(q, planned(("ban", Role.RULE)), P.get, short, tokenize)
    assert got is not None and got.value == "no"
    assert decide(q, planned(("ban", Role.RULE)), P.get, short, None) is None
    assert decide(q, planned(("ban", Role.RULE)), P.get, (), tokenize) is None


def test_a_sentence_about_something_else_decides_nothing():
    q = "ok to cover the tarp with paint?"
    assert (
        decide(q, planned(("ban", Role.RULE)), P.get, [frozenset(tokenize("tarp paint"))], tokenize) is None
    )
    assert (
        decide("How high must the top rail be?", planned(("ban", Role.RULE)), P.get, ASKS, tokenize) is None
    )


def test_statements_follow_the_verdict_by_role_each_with_its_quote():
    plan = planned(("r10", Role.RULE), ("k", Role.PROCEDURE), ("r2", Role.CONDITION))
    got = compose(LEADING, plan, P.get, WordEmbedder(), asks=ASKS, tokenize=tokenize)
    assert got.verdict is not None and got.verdict.value == "no"
    # r10 decides it, r2 is why: both quoted in it
    assert [st.role for st in got.statements] == ["verdict", "procedure"]
    assert got.statements[0].text == "No: r10 provides for it, but leading edge work is covered by r2."
    assert got.statements[0].citations == ("r10", "r2") and [
        q.provision_id for q in got.statements[0].quotes
    ] == ["r10", "r2"]
    for st in got.statements:
        assert st.quotes and all(P[q.provision_id].text[q.start : q.end] == q.text for q in st.quotes)
    assert "Required by reference: " in render(got.statements)


def test_a_claim_over_every_case_gets_no_from_a_later_sentence_that_scopes_it_with_the_rulebooks_words():
    text = {
        "a": "Employees shall wear boots. Warning lines with arrest systems may be used only on roofs.",
        "b": "Each employee on a leading edge shall be protected.",
    }
    found = {
        pid: Provision(corpus="adgm", id=pid, kind=ProvisionKind.PARAGRAPH, text=t) for pid, t in text.items()
    }
    planned = [Planned("a", Role.RULE, ("a",), "ranked"), Planned("b", Role.RULE, ("b",), "ranked")]
    asks = [frozenset({"warning"}), frozenset({"arrest"}), frozenset({"leading"})]
    verdict = scoped_elsewhere(
        planned, found.get, asks, lambda t: re.findall(r"\w+", t.lower()), words_for("adgm")
    )
    assert verdict is not None and verdict.value == "no" and verdict.provision_id == "a"
    assert verdict.words == "Warning lines with arrest systems may be used only on roofs."


def test_the_verdict_line_says_in_one_clause_why_with_the_provisions_heading_and_the_condition_it_names():
    flooded = Provision(
        corpus="c",
        id="h1",
        kind=ProvisionKind.PARAGRAPH,
        heading="Water accumulation.",
        text="Employees shall not work in excavations in which there is accumulated water, unless adequate "
        "precautions have been taken to protect employees against the hazards posed by water.",
    )
    q = "Is it ok to let employees work in an excavation with accumulated water?"
    got = compose(
        q,
        planned(("h1", Role.RULE)),
        {"h1": flooded}.get,
        WordEmbedder(),
        asks=[frozenset(tokenize("excavation accumulated water"))],
        tokenize=tokenize,
    )
    assert got.verdict is not None and got.verdict.value == "no"
    assert got.statements[0].text == (
        "No: h1 (Water accumulation) prohibits it unless adequate precautions have been taken "
        "to protect employees against the hazards posed by water."
    )
    assert got.statements[0].quotes[0].text == flooded.text  # the deciding sentence is the line's quote


def test_a_provision_is_also_quoted_by_its_sentence_that_alone_holds_a_part_of_the_question():
    inspect = Provision(
        corpus="c",
        id="k1",
        kind=ProvisionKind.PARAGRAPH,
        text="Daily inspections of excavations shall be made by a competent person. An inspection shall be "
        "conducted before the start of work. Inspections shall also be made after every rainstorm.",
    )
    q = "How to protect excavation work from rainstorm hazard?"
    asks = [frozenset(tokenize("excavation")), frozenset(tokenize("rainstorm"))]
    got = compose(
        q, planned(("k1", Role.RULE)), {"k1": inspect}.get, WordEmbedder(), asks=asks, tokenize=tokenize
    )
    (statement,) = got.statements
    daily, rain = (
        "Daily inspections of excavations shall be made by a competent person.",
        "Inspections shall also be made after every rainstorm.",
    )
    # whichever sentence is closest, both asks are quoted
    assert daily in statement.text and rain in statement.text
    starts = [q.start for q in statement.quotes]
    assert starts == sorted(starts) and {q.text for q in statement.quotes} >= {daily, rain}


def test_a_rule_whose_one_condition_the_question_states_answers_and_names_the_condition():
    money = Provision(
        corpus="c",
        id="6.1.1",
        kind=ProvisionKind.SECTION,
        text="Where an Authorised Person holds Client Money, it must keep a client account.",
    )
    asks = [frozenset(tokenize("client money")), frozenset(tokenize("client account"))]
    met = "We hold client money: must we keep a client account?"
    got = decide(met, planned(("6.1.1", Role.RULE)), {"6.1.1": money}.get, asks, tokenize)
    assert got is not None and got.value == "yes"
    assert got.reason == "6.1.1 requires it where an Authorised Person holds Client Money"
    unmet = "Must we keep a client account?"  # the question never says it holds client money
    assert decide(unmet, planned(("6.1.1", Role.RULE)), {"6.1.1": money}.get, asks, tokenize) is None


def test_a_met_exception_never_turns_into_the_rule_it_excepts():
    duty = Provision(
        corpus="c",
        id="d",
        kind=ProvisionKind.PARAGRAPH,
        text="Each employee shall be protected by guardrails unless the employer demonstrates infeasibility.",
    )
    q = "The employer demonstrates infeasibility: do we need guardrails for each employee?"
    asks = [frozenset(tokenize("guardrails")), frozenset(tokenize("employee"))]
    assert decide(q, planned(("d", Role.RULE)), {"d": duty}.get, asks, tokenize) is None


def test_a_definition_is_stated_by_the_sentence_that_says_what_the_term_means():
    pfas = Provision(
        corpus="c",
        id="500[PFAS]",
        kind=ProvisionKind.DEFINITION,
        text="Personal fall arrest system means a system used to arrest an employee in a fall. "
        "As of January 1, 1998, the use of a body belt for fall arrest is prohibited.",
    )
    q = "Is a body belt prohibited as a personal fall arrest system since 1998?"
    got = compose(
        q,
        planned(("500[PFAS]", Role.DEFINITION)),
        {"500[PFAS]": pfas}.get,
        WordEmbedder(),
        with_verdict=False,
    )
    assert [st.text for st in got.statements] == [
        "Personal fall arrest system means a system used to arrest an employee in a fall."
    ]


GFCI = {
    "duty": Provision(
        corpus="c",
        id="duty",
        kind=ProvisionKind.PARAGRAPH,
        text="All receptacle outlets on construction sites shall have approved ground-fault circuit "
        "interrupters. "
        "Receptacles on a single-phase portable generator rated not more than 5kW need not be protected "
        "with ground-fault circuit interrupters.",
    ),
    "trench": Provision(
        corpus="c",
        id="trench",
        kind=ProvisionKind.PARAGRAPH,
        text="Each employee in an excavation 5 feet (1.52 m) or more in depth shall be protected by a "
        "protective system.",
    ),
    "cyl": Provision(
        corpus="c",
        id="cyl",
        kind=ProvisionKind.PARAGRAPH,
        text="Oxygen cylinders shall be kept far enough away from the cutting operation so that sparks will "
        "not reach them.",
    ),
}


def test_a_duty_the_same_plan_excepts_gives_no_flat_verdict():
    q = "Are ground-fault circuit interrupters required on receptacles of portable generators?"
    asks = [
        frozenset(tokenize("ground-fault circuit interrupters")),
        frozenset(tokenize("portable generators")),
    ]
    assert decide(q, planned(("duty", Role.RULE)), GFCI.get, asks, tokenize) is None


def test_a_figure_the_rule_speaks_to_is_compared_with_its_threshold():
    asks = [frozenset(tokenize("protective system")), frozenset(tokenize("excavation depth"))]
    deep = decide(
        "Is a protective system required for an excavation 12ft in depth?",
        planned(("trench", Role.RULE)),
        GFCI.get,
        asks,
        tokenize,
    )
    assert deep is not None and deep.value == "yes"
    shallow = "Is a protective system required for an excavation 3 feet in depth?"
    # 3 ft fails the 5 ft threshold
    assert decide(shallow, planned(("trench", Role.RULE)), GFCI.get, asks, tokenize) is None


def test_a_figure_the_rule_sets_nothing_for_gives_no_verdict():
    q = "Do oxygen cylinders need to be kept 35′ away from the cutting operation?"
    asks = [frozenset(tokenize("oxygen cylinders")), frozenset(tokenize("cutting operation"))]
    assert decide(q, planned(("cyl", Role.RULE)), GFCI.get, asks, tokenize) is None
    without = "Do oxygen cylinders need to be kept away from the cutting operation?"
    got = decide(without, planned(("cyl", Role.RULE)), GFCI.get, asks, tokenize)
    assert got is not None and got.value == "yes"


def test_a_rule_whose_threshold_the_question_leaves_open_gives_no_verdict():
    rule = Provision(
        corpus="c",
        id="roof",
        kind=ProvisionKind.PARAGRAPH,
        text="On roofs 50 feet (15.25 m) or less in width, the use of a safety monitoring system alone is "
        "permitted.",
    )
    asks = [frozenset(tokenize("safety monitoring system")), frozenset(tokenize("roofs"))]
    open_width = "Can we use a safety monitoring system alone on the roofs?"
    assert decide(open_width, planned(("roof", Role.RULE)), {"roof": rule}.get, asks, tokenize) is None
    narrow = "Can we use a safety monitoring system alone on the roofs, 40 feet wide?"
    got = decide(narrow, planned(("roof", Role.RULE)), {"roof": rule}.get, asks, tokenize)
    assert got is not None and got.value == "yes"


def test_a_rule_that_opens_a_list_of_conditions_gives_no_verdict():
    rule = Provision(
        corpus="c",
        id="gen",
        kind=ProvisionKind.PARAGRAPH,
        text="Under the following conditions, the frame of a portable generator need not be grounded:",
    )
    asks = [frozenset(tokenize("portable generator")), frozenset(tokenize("frame grounded"))]
    q = "Does the frame of our portable generator need to be grounded?"
    assert decide(q, planned(("gen", Role.RULE)), {"gen": rule}.get, asks, tokenize) is None


def test_by_default_only_the_no_to_a_claim_over_every_case_is_said():
    plan = planned(("r10", Role.RULE), ("r2", Role.RULE))
    every = decide(LEADING, plan, P.get, ASKS, tokenize, verdicts="every")
    assert every is not None and every.value == "no"
    q = "ok to cover our wood platforms with opaque orange paint?"
    asks = [frozenset(tokenize("wood platforms opaque paint"))]
    assert decide(q, planned(("ban", Role.RULE)), P.get, asks, tokenize, verdicts="rules").value == "no"
    assert decide(q, planned(("ban", Role.RULE)), P.get, asks, tokenize, verdicts="every") is None
    assert decide(LEADING, plan, P.get, ASKS, tokenize, verdicts="off") is None


def test_the_default_verdicts_setting_is_every():
    from bifrost.retrieval.config import RetrievalConfig

    assert RetrievalConfig().verdicts == "every"


def test_a_provision_asked_for_whole_is_stated_by_every_sentence():
    two = Provision(
        corpus="c",
        id="k1",
        kind=ProvisionKind.PARAGRAPH,
        text="Daily inspections shall be made by a competent person. Inspections shall also be made after "
        "every rainstorm.",
    )
    one = compose("What does k1 require?", planned(("k1", Role.RULE)), {"k1": two}.get, WordEmbedder())
    whole = compose(
        "What does k1 require?", planned(("k1", Role.RULE)), {"k1": two}.get, WordEmbedder(), whole={"k1"}
    )
    assert len(one.statements[0].quotes) == 1 and whole.statements[0].text == two.text


GENERATOR = Provision(
    corpus="c",
    id="g1",
    kind=ProvisionKind.PARAGRAPH,
    heading="Portable generators.",
    text="Receptacles on portable generators shall be protected by ground-fault circuit interrupters, "
    "except that receptacles on a two-wire, single-phase portable generator rated not more than "
    "5 kW need not be protected.",
)
GFCI_Q = "Are ground-fault circuit interrupters required on portable generators?"
GFCI_ASKS = [frozenset(tokenize("ground-fault circuit interrupters portable generators"))]


def test_a_rule_whose_exception_the_question_leaves_open_gives_no_yes_or_no():
    got = decide(
        GFCI_Q, planned(("g1", Role.RULE)), {"g1": GENERATOR}.get, GFCI_ASKS, tokenize, verdicts="rules"
    )
    assert got is None


def test_depends_names_the_open_conditions_in_the_rules_words():
    got = decide(
        GFCI_Q, planned(("g1", Role.RULE)), {"g1": GENERATOR}.get, GFCI_ASKS, tokenize, verdicts="depends"
    )
    assert got is not None and got.value == "depends" and got.provision_id == "g1"
    assert "5 kW" in got.reason and "two-wire, single-phase portable generator" in got.reason


def test_a_question_that_states_the_exceptions_case_is_not_left_open():
    q = (
        "Are ground-fault circuit interrupters required on a two-wire single-phase portable generator "
        "of 3 kW?"
    )
    got = decide(
        q, planned(("g1", Role.RULE)), {"g1": GENERATOR}.get, GFCI_ASKS, tokenize, verdicts="depends"
    )
    assert got is None or got.value != "yes"
