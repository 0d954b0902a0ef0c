"""The questions every release must answer (BifrostRAG's case study and introduction example),
offline, on the embedded store and on Neo4j alike: the answer itself cites every provision the
question needs (not merely retrieves it), and the leading-edge question gets the verdict "no", whatever
the learned ranker's seed."""

from __future__ import annotations

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.answer_types import AnswerMode
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever
from tests.conftest import ranker_home_at_seed

RAINSTORM = "How to protect excavation work from rainstorm hazard?"
LEADING_EDGE = (
    "Can a combination of a warning line system and personal fall arrest system be used for all types of "
    "leading-edge work?"
)
MUST_CITE = {
    RAINSTORM: {"1926.651(h)(1)", "1926.651(h)(2)", "1926.651(h)(3)", "1926.651(k)(1)"},
    LEADING_EDGE: {"1926.501(b)(2)(i)", "1926.502(k)", "1926.501(b)(10)", "1926.501(b)(12)"},
}
OFF_TOPIC = ["How do I bake sourdough bread?", "Who won the 1998 FIFA World Cup?"]


@pytest.fixture(scope="module")
def embedded(osha_home):
    bf = Bifrost(Settings(home=osha_home), RetrievalConfig(ranker="hybrid"))
    yield bf
    bf.close()


@pytest.fixture(scope="module")
def learned(osha_ranker_home):
    bf = Bifrost(Settings(home=osha_ranker_home), RetrievalConfig(ranker="ltr"))
    yield bf
    bf.close()


@pytest.mark.slow
@pytest.mark.parametrize("question", list(MUST_CITE))
def test_the_hybrid_answer_cites_every_provision_the_question_needs(embedded, question):
    answer = embedded.ask(question)
    cited = {c.id for c in answer.citations}
    assert MUST_CITE[question] <= cited, MUST_CITE[question] - cited
    assert not answer.refused and answer.mode is AnswerMode.EXTRACTIVE
    if question == LEADING_EDGE:
        assert answer.verdict is not None and answer.verdict.value == "no", answer.verdict


@pytest.mark.slow
@pytest.mark.parametrize("question", list(MUST_CITE))
def test_the_learned_ranker_answer_cites_every_provision_the_question_needs(learned, question):
    assert isinstance(learned.retriever("osha-1926"), LtrRetriever)
    answer = learned.ask(question)
    cited = {c.id for c in answer.citations}
    assert MUST_CITE[question] <= cited, MUST_CITE[question] - cited
    assert not answer.refused and answer.outcome.value == "answered"
    assert {p.id for p in answer.plan} >= cited and all(p.path[-1] == p.id for p in answer.plan)
    if question == LEADING_EDGE:
        assert answer.verdict is not None and answer.verdict.value == "no", answer.verdict


JUSTIFIED = {
    RAINSTORM: {},
    LEADING_EDGE: {
        "1926.501(b)(2)(ii)": "states leading edge",  # the other paragraph of the leading-edge list
        "1926.501(b)(12)[Note]": "another case sent to 1926.502(k)",  # also sent to the fall protection plan
        "1926.501(b)(13)": "another case sent to 1926.502(k)",
    },
}
"""What the answers cite beyond the four of each question, and the plan's stated reason for each (unless the
ranker's own cited set holds it: "ranked N")."""
UNTUNED_SEEDS = [17, 41]
"""LightGBM seeds no rule of the answer plan was tuned at (the `lists` rule was checked at seeds 0-4); two,
since each fits a ranker on every collected group."""
FOUND_WITHIN = 5
"""Where a provision the question needs ranks at most, whatever the seed."""


@pytest.mark.slow
@pytest.mark.parametrize("seed", UNTUNED_SEEDS)
def test_whatever_the_rankers_seed_the_needed_provisions_lead_and_every_citation_is_justified(
    osha_ranker_candidates, tmp_path, seed
):
    """LightGBM's seed draws the rows and columns each tree samples, and a fit on features that differ in the
    seventh decimal from one processor to another (the ONNX encoder's kernels) draws other trees: how many
    provisions the ranker's score gap puts in the answer-sized set then differs by seed and by machine (seed
    17 cited 1926.651(k)(1) on one machine and not on another, so no exact cited set holds at every seed).
    What holds at every seed, on every machine: each provision the question needs is ranked among the first
    `FOUND_WITHIN` or cited; every citation is the ranker's own or carries the plan's stated reason; and the
    leading-edge answer is "no"."""
    bf = Bifrost(
        Settings(home=ranker_home_at_seed(osha_ranker_candidates, seed, tmp_path / "home")),
        RetrievalConfig(ranker="ltr"),
    )
    try:
        for question, wanted in MUST_CITE.items():
            answer = bf.ask(question)
            cited, reasons = {c.id for c in answer.citations}, {p.id: p.reason for p in answer.plan}
            top = {it.id for it in answer.retrieved[:FOUND_WITHIN]}
            assert wanted <= cited | top, (seed, question, wanted - cited - top)
            assert cited & wanted, (seed, question, cited)
            for pid in cited - wanted:
                reason = reasons[pid]
                expected = JUSTIFIED[question].get(pid, "")
                assert reason.startswith("ranked ") or (expected and reason.startswith(expected)), (
                    seed,
                    pid,
                    reason,
                )
        assert bf.ask(LEADING_EDGE).verdict.value == "no"
    finally:
        bf.close()


@pytest.mark.slow
@pytest.mark.parametrize("question", OFF_TOPIC)
def test_the_learned_ranker_still_refuses_off_topic_questions(learned, question):
    answer = learned.ask(question)
    assert answer.refused and answer.citations == []


@pytest.mark.slow
def test_every_statement_cites_a_planned_provision_with_its_official_link(embedded):
    answer = embedded.ask(RAINSTORM)
    retrieved = {it.id for it in answer.retrieved}
    planned = {p.id: p for p in answer.plan}
    assert answer.statements
    for st in answer.statements:
        assert st.citations and set(st.citations) <= set(planned)
        for c in st.citations:  # a cited provision was retrieved, or reached from a retrieved one by its path
            assert c in retrieved or planned[c].path[0] in retrieved, planned[c]
    for c in answer.citations:
        assert c.url and c.url.startswith("https://www.ecfr.gov/current/title-29/section-1926.")
    assert {"1926.651(h)(1)", "1926.651(h)(3)"} & {c.id for c in answer.citations}


@pytest.mark.slow
def test_every_retrieved_provision_says_how_it_was_reached(embedded):
    answer = embedded.ask(LEADING_EDGE)
    for it in answer.retrieved:
        assert it.via and it.why and it.path[-1] == it.id
    plan = next(it for it in answer.retrieved if it.id == "1926.502(k)")
    assert any(v.value == "refers_to" for v in plan.via) or plan.path[0] == plan.id


@pytest.mark.slow
@pytest.mark.parametrize("question", OFF_TOPIC)
def test_a_question_the_regulations_do_not_answer_is_refused(embedded, question):
    answer = embedded.ask(question)
    assert answer.refused and answer.citations == [] and answer.statements == []


@pytest.mark.slow
@pytest.mark.neo4j
def test_neo4j_store_retrieves_the_same_provisions(osha_in_neo4j, neo4j_uri):
    osha_home = osha_in_neo4j
    bf = Bifrost(Settings(home=osha_home, store="neo4j", neo4j_uri=neo4j_uri))
    try:
        for question, wanted in MUST_CITE.items():
            answer = bf.ask(question)
            assert wanted <= {c.id for c in answer.citations}
        emb = Bifrost(Settings(home=osha_home))
        try:
            a = [it.id for it in emb.ask(LEADING_EDGE).retrieved]
        finally:
            emb.close()
        assert [it.id for it in bf.ask(LEADING_EDGE).retrieved] == a
    finally:
        bf.close()
