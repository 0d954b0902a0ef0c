"""The offline answer from a plan: the verdict first when there is one (the decision step's, or the "no" to a
claim over every case that a rule grants for one case only), then statements by role (rules, exceptions,
conditions, procedures, definitions), each a verified quote."""

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
    assert (
        got is None
    )  # the plan grants the whole claim: no "no" from the narrower r10 (a yes is the decision's)


GUARDRAIL_ASKS = [frozenset(tokenize("guardrail")), frozenset(tokenize("unprotected edge"))]


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


def test_only_the_no_to_a_claim_over_every_case_is_said_without_the_decision_step():
    plan = planned(("r10", Role.RULE), ("r2", Role.RULE))
    every = decide(LEADING, plan, P.get, ASKS, tokenize, verdicts="every")
    assert every is not None and every.value == "no"
    q = "ok to cover our wood platforms with opaque orange paint?"
    asks = [frozenset(tokenize("wood platforms opaque paint"))]
    # a prohibition on the question's terms: the decision step's to decide, never the sentence patterns'
    assert decide(q, planned(("ban", Role.RULE)), P.get, asks, tokenize) is None
    assert decide(LEADING, plan, P.get, ASKS, tokenize, verdicts="off") is None


def test_the_default_verdicts_setting_is_every_and_the_sentence_patterns_are_a_one_line_error(
    monkeypatch, tmp_path
):
    import pytest

    from bifrost.core.errors import ConfigError
    from bifrost.core.settings import Settings
    from bifrost.retrieval.config import RetrievalConfig

    assert RetrievalConfig().verdicts == "every"
    monkeypatch.chdir(tmp_path)
    for removed in ("rules", "depends"):
        monkeypatch.setenv("BIFROST_RETRIEVAL__VERDICTS", removed)
        with pytest.raises(ConfigError) as e:
            RetrievalConfig.from_settings(Settings())
        said = str(e.value)
        assert f"'verdicts' = {removed!r} was removed" in said and "\n" not in said


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
