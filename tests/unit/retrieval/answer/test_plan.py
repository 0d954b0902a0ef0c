"""The answer plan: the cited set, a provision for each ask no cited one states, and what the navigator
graph joins to them (the exception a rule names, the cases sent to the same plan, the rest of a short
list, the definitions of the question's terms), each with its role and path."""

from __future__ import annotations

import re
from dataclasses import replace

from bifrost.core.types import Provision, ProvisionKind, Reference
from bifrost.retrieval.answer.base import Role
from bifrost.graph_builders.jurisdictions.registry import words_for
from bifrost.retrieval.answer.plan import CORE_ONLY, PlanPolicy, plan_answer, reference_role
from bifrost.core.sentences import citing_sentence
from bifrost.retrieval.navigator import NavigatorIndex

TEXT = {
    "1926.500(b)[Leading edge]": "Leading edge means the edge of a floor which changes location as sections "
    "are placed.",
    "1926.501(b)(2)(i)": "Each employee who is constructing a leading edge shall be protected by guardrail "
    "systems. "
    "Exception: When the employer can demonstrate that it is infeasible, the employer shall develop a "
    "fall protection plan which meets the requirements of paragraph (k) of § 1926.502.",
    "1926.501(b)(2)(ii)": "Each employee near a leading edge under construction shall be protected by a "
    "guardrail system.",
    "1926.501(b)(10)": "Each employee engaged in roofing activities on low-slope roofs shall be protected "
    "by a warning line "
    "system and personal fall arrest system.",
    "1926.501(b)(12)": "Each employee erecting precast concrete shall be protected by guardrail systems. "
    "Exception: when it "
    "is infeasible, the employer shall implement a fall protection plan which meets the requirements "
    "of paragraph (k) of § 1926.502.",
    "1926.501(b)(14)": "Each employee in a hoist area shall be protected by guardrail systems.",
    "1926.501(b)(15)": "Each employee on a walking/working surface shall be protected by guardrail systems.",
    "1926.502(k)": "The fall protection plan shall be prepared by a qualified person.",
}
PARENT = {
    "1926.501(b)(2)(i)": "1926.501(b)(2)",
    "1926.501(b)(2)(ii)": "1926.501(b)(2)",
    "1926.501(b)(2)": "1926.501(b)",
    "1926.501(b)(10)": "1926.501(b)",
    "1926.501(b)(12)": "1926.501(b)",
    "1926.501(b)(14)": "1926.501(b)",
    "1926.501(b)(15)": "1926.501(b)",
    "1926.501(b)": "1926.501",
    "1926.501": "M",
    "1926.502(k)": "1926.502",
    "1926.502": "M",
    "1926.500(b)[Leading edge]": "1926.500(b)",
    "1926.500(b)": "1926.500",
    "1926.500": "M",
    "M": None,
}
KIND = {
    "M": ProvisionKind.SUBPART,
    "1926.500": ProvisionKind.SECTION,
    "1926.501": ProvisionKind.SECTION,
    "1926.502": ProvisionKind.SECTION,
    "1926.500(b)[Leading edge]": ProvisionKind.DEFINITION,
}


def nav() -> NavigatorIndex:
    provisions = [
        Provision(
            corpus="c",
            id=pid,
            parent_id=parent,
            kind=KIND.get(pid, ProvisionKind.PARAGRAPH),
            text=TEXT.get(pid, ""),
        )
        for pid, parent in PARENT.items()
    ]
    refs = [
        Reference(corpus="c", source_id=s, raw="paragraph (k) of § 1926.502", target_id="1926.502(k)")
        for s in ("1926.501(b)(2)(i)", "1926.501(b)(12)")
    ]
    return NavigatorIndex.build(provisions, refs)


def tokenize(text: str) -> list[str]:
    return [w.rstrip("s") for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2]


def plan(core, ranked, asks=(), policy=PlanPolicy(), question=""):
    return plan_answer(
        ranked,
        core,
        nav(),
        lambda pid: TEXT.get(pid, ""),
        [frozenset(tokenize(a)) for a in asks],
        tokenize,
        policy,
        frozenset(tokenize(question)),
    )


def test_the_cited_set_is_the_core_of_the_plan_as_rules():
    got = plan(["1926.501(b)(10)"], ["1926.501(b)(10)"], policy=CORE_ONLY)
    assert [(p.id, p.role, p.path) for p in got] == [("1926.501(b)(10)", Role.RULE, ("1926.501(b)(10)",))]


def test_an_ask_no_cited_provision_states_brings_in_the_best_ranked_provision_that_does():
    got = {
        p.id: p
        for p in plan(
            ["1926.501(b)(10)"],
            ["1926.501(b)(10)", "1926.501(b)(2)(ii)", "1926.501(b)(2)(i)"],
            asks=["warning line", "leading edge"],
            policy=PlanPolicy(exceptions=False, procedures=False),
        )
    }
    assert (
        got["1926.501(b)(2)(ii)"].role is Role.RULE
        and got["1926.501(b)(2)(ii)"].reason == "states leading edge"
    )
    # the other case of the same list that states the ask
    assert got["1926.501(b)(2)(i)"].role is Role.CONDITION


def test_an_ask_a_cited_provision_states_still_brings_the_other_case_of_its_list():
    got = {
        p.id: p
        for p in plan(
            ["1926.501(b)(2)(ii)"],
            ["1926.501(b)(2)(ii)"],
            asks=["leading edge"],
            policy=PlanPolicy(exceptions=False, procedures=False),
        )
    }
    assert got["1926.501(b)(2)(i)"].role is Role.CONDITION and got["1926.501(b)(2)(i)"].path == (
        "1926.501(b)(2)(ii)",
        "1926.501(b)(2)(i)",
    )


def test_an_ask_most_paragraphs_of_a_list_state_is_the_lists_topic_not_one_of_its_cases():
    policy = PlanPolicy(exceptions=False, procedures=False)
    got = [
        p.id
        for p in plan(["1926.501(b)(12)"], ["1926.501(b)(12)"], asks=["employee protected"], policy=policy)
    ]
    # (b)(10), (b)(14) and (b)(15) all protect employees: three, more than two cases
    assert got == ["1926.501(b)(12)"]
    two = [p.id for p in plan(["1926.501(b)(12)"], ["1926.501(b)(12)"], asks=["guardrail"], policy=policy)]
    assert two == ["1926.501(b)(12)", "1926.501(b)(14)", "1926.501(b)(15)"]


def test_a_short_list_whose_heading_and_one_of_its_paragraphs_rank_high_is_stated_whole():
    policy = PlanPolicy(asks=False, exceptions=False, procedures=False, siblings=False, lists=True)
    got = {
        p.id: p
        for p in plan(
            ["1926.501(b)(10)"], ["1926.501(b)(10)", "1926.501(b)(2)", "1926.501(b)(2)(ii)"], policy=policy
        )
    }
    assert set(got) == {"1926.501(b)(10)", "1926.501(b)(2)(i)", "1926.501(b)(2)(ii)"}
    assert (
        got["1926.501(b)(2)(i)"].path == ("1926.501(b)(2)", "1926.501(b)(2)(i)")
        and got["1926.501(b)(2)(i)"].role is Role.RULE
    )
    alone = plan(["1926.501(b)(10)"], ["1926.501(b)(10)", "1926.501(b)(2)", "1926.501(b)(14)"], policy=policy)
    # the heading without any of its paragraphs: not enough
    assert [p.id for p in alone] == ["1926.501(b)(10)"]
    assert [
        p.id
        for p in plan(
            ["1926.501(b)(10)"],
            ["1926.501(b)(10)", "1926.501(b)(2)", "1926.501(b)(2)(ii)"],
            policy=replace(policy, lists=False),
        )
    ] == ["1926.501(b)(10)"]
    section = plan(["1926.501(b)(10)"], ["1926.501(b)(10)", "1926.500", "1926.500(b)"], policy=policy)
    # a section (and its one paragraph) is a topic, not a list of cases
    assert [p.id for p in section] == ["1926.501(b)(10)"]


def test_an_exception_a_rule_names_joins_with_its_path_and_the_other_cases_sent_to_it():
    got = {p.id: p for p in plan(["1926.501(b)(2)(i)"], ["1926.501(b)(2)(i)"])}
    assert got["1926.502(k)"].role is Role.EXCEPTION and got["1926.502(k)"].path == (
        "1926.501(b)(2)(i)",
        "1926.502(k)",
    )
    assert got["1926.501(b)(12)"].role is Role.CONDITION
    assert got["1926.501(b)(12)"].path == ("1926.501(b)(2)(i)", "1926.502(k)", "1926.501(b)(12)")
    assert "1926.501(b)(14)" not in got  # it sends nothing to the plan


def test_a_definition_joins_only_for_a_term_the_question_and_a_chosen_provision_use():
    policy = PlanPolicy(definitions=True)
    got = [
        p.id
        for p in plan(
            ["1926.501(b)(2)(i)"],
            ["1926.501(b)(2)(i)"],
            policy=policy,
            question="Who counts as at a leading edge?",
        )
    ]
    assert "1926.500(b)[Leading edge]" in got
    assert "1926.500(b)[Leading edge]" not in [
        p.id
        for p in plan(
            ["1926.501(b)(2)(i)"], ["1926.501(b)(2)(i)"], policy=policy, question="When is a plan needed?"
        )
    ]


def test_the_plan_stops_at_its_size():
    got = plan(["1926.501(b)(2)(i)"], ["1926.501(b)(2)(i)"], policy=PlanPolicy(most=2))
    assert len(got) == 2


def test_the_role_of_a_cited_provision_comes_from_the_sentence_citing_it():
    text = TEXT["1926.501(b)(2)(i)"]
    assert reference_role(citing_sentence(text, "paragraph (k) of § 1926.502")) is Role.EXCEPTION
    assert reference_role("Ladders shall be used in accordance with § 1926.1053.") is Role.PROCEDURE
    assert reference_role("See § 1926.1053.") is None


# An ADGM-shaped rulebook: rules are sections with their own text, exceptions say "Subject to Rule ...",
# and a definition's id carries no "[Term]": its term is the provision's own.
ADGM_TEXT = {
    "6.1.1": "Subject to Rule 6.2.1, an Authorised Person must notify the Regulator of a breach.",
    "6.1.2": "An Authorised Person must keep records of each notification in accordance with Rule 6.3.1 and "
    "Section 7.1.",
    "7.1(a)": "A record names the breach.",
    "6.2.1": "Rule 6.1.1 does not apply to a breach that is remedied within one business day.",
    "6.3.1": "Records must be kept for six years.",
    "GLO.1": "A Client is a Person to whom an Authorised Person provides a service.",
    "6.4.1": "A notification to a Client must be made in accordance with Rule 6.1.1 and Rule 6.3.1.",
}
ADGM_KIND = {"COB": ProvisionKind.PART, "GLO.1": ProvisionKind.DEFINITION, "7.1(a)": ProvisionKind.PARAGRAPH}


def adgm_plan(core, question="", policy=PlanPolicy(definitions=True)):
    parent = {
        "6.1.1": "COB",
        "6.1.2": "COB",
        "6.2.1": "COB",
        "6.3.1": "COB",
        "6.4.1": "COB",
        "GLO.1": "COB",
        "7.1": "COB",
        "7.1(a)": "7.1",
        "COB": None,
    }
    provisions = [
        Provision(
            corpus="adgm",
            id=pid,
            parent_id=up,
            kind=ADGM_KIND.get(pid, ProvisionKind.SECTION),
            text=ADGM_TEXT.get(pid, ""),
            term="Client" if pid == "GLO.1" else None,
        )
        for pid, up in parent.items()
    ]
    refs = [
        Reference(corpus="adgm", source_id=s, raw=f"Rule {t}", target_id=t)
        for s, t in (("6.1.1", "6.2.1"), ("6.1.2", "6.3.1"), ("6.1.2", "7.1"))
    ]
    terms = {p.id: p.term or "" for p in provisions}
    return plan_answer(
        core,
        core,
        NavigatorIndex.build(provisions, refs),
        lambda pid: ADGM_TEXT.get(pid, ""),
        [],
        tokenize,
        policy,
        frozenset(tokenize(question)),
        lambda pid: terms.get(pid, ""),
        words_for("adgm"),
    )


def test_in_adgm_subject_to_a_rule_makes_it_an_exception_and_subject_to_a_hazard_does_not():
    adgm = words_for("adgm")
    assert (
        reference_role("Subject to Rule 6.2.1, an Authorised Person must notify the Regulator.", adgm)
        is Role.EXCEPTION
    )
    assert (
        reference_role(
            "Each employee subject to falling shall be protected in accordance with § 1926.502.", adgm
        )
        is Role.PROCEDURE
    )
    got = {p.id: p.role for p in adgm_plan(["6.1.1"])}
    assert got == {"6.1.1": Role.RULE, "6.2.1": Role.EXCEPTION}


def test_a_procedure_joins_a_section_that_is_itself_a_rule_but_not_a_section_of_paragraphs():
    got = {p.id: p.role for p in adgm_plan(["6.1.2"])}
    # Section 7.1 has no text of its own: not stated whole
    assert got == {"6.1.2": Role.RULE, "6.3.1": Role.PROCEDURE}


def test_a_definition_is_found_by_its_own_term_in_any_rulebook():
    got = {p.id: p.role for p in adgm_plan(["6.4.1"], question="Do we have to tell the client?")}
    assert got.get("GLO.1") is Role.DEFINITION
    assert "GLO.1" not in {p.id for p in adgm_plan(["6.4.1"], question="Do we have to tell them?")}


def test_in_the_cfr_subject_to_a_section_is_coverage_not_an_exception():
    sentence = (
        "Employees performing post-emergency response are subject to paragraph (q)(11) of this section."
    )
    assert reference_role(sentence, words_for("osha-1926")) is None
    assert reference_role(sentence, words_for("adgm")) is Role.EXCEPTION
