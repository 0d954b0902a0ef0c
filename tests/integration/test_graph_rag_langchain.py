"""The `graph-rag-langchain` baseline on the real Neo4j, with a chat model scripted per prompt.

The scripted model answers LangChain's three prompts: graph extraction (a JSON list of relations
for each provision's text), Cypher generation, and the QA answer. Every node a test makes carries
a unique corpus name and is deleted afterwards, so the other Neo4j tests see nothing of it.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bifrost.core.settings import Settings
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Provision, ProvisionKind
from bifrost.eval.registry import graph_rag_langchain_factory
from bifrost.retrieval.base import SystemUnavailable
from bifrost.eval.graph_rag_langchain_system import GraphRagLangchainSystem
from tests.fake_chat import ScriptedChatModel

pytestmark = pytest.mark.neo4j

TOKEN = uuid.uuid4().hex[:8]
CORPUS = f"grl-test-{TOKEN}"
FLAKY = f"grl-flaky-{TOKEN}"  # a corpus whose ladder provision first gets a bad extraction
BROKEN = f"grl-broken-{TOKEN}"  # a corpus no extraction succeeds on
P, S, SEC, PARA = ProvisionKind.PART, ProvisionKind.SUBPART, ProvisionKind.SECTION, ProvisionKind.PARAGRAPH
ROWS = [
    ("1926", None, P, "Construction", ""),
    ("1926 Subpart L", "1926", S, "Scaffolds", ""),
    ("1926.451", "1926 Subpart L", SEC, "General requirements.", ""),
    ("1926.451(g)", "1926.451", PARA, "", "Guardrails are required on every scaffold platform."),
    ("1926 Subpart P", "1926", S, "Excavations", ""),
    ("1926.651", "1926 Subpart P", SEC, "Specific excavation requirements.", ""),
    ("1926.651(c)", "1926.651", PARA, "", "Trench boxes protect employees in a trench."),
    ("1926 Subpart X", "1926", S, "Stairways and Ladders", ""),
    ("1926.1053", "1926 Subpart X", SEC, "Ladders.", ""),
    ("1926.1053(b)", "1926.1053", PARA, "", "Ladders shall have side rails secured against displacement."),
]
IN_L_AND_X = {"1926.451", "1926.451(g)", "1926.1053", "1926.1053(b)"}  # parts and subparts have no document


def relations(text: str) -> list[dict[str, str]]:
    """The scripted extraction: guardrails on scaffolds ('Entity' and 'HAS' collide with Bifrost's names)."""
    if "Guardrails" in text:
        return [
            {
                "head": f"Guardrail {TOKEN}",
                "head_type": "Equipment",
                "relation": "REQUIRED_ON",
                "tail": f"Scaffold {TOKEN}",
                "tail_type": "Entity",
            }
        ]
    if "Ladders shall" in text:
        return [
            {
                "head": f"Ladder {TOKEN}",
                "head_type": "Equipment",
                "relation": "HAS",
                "tail": f"Side rail {TOKEN}",
                "tail_type": "Component",
            }
        ]
    return []


def scripted(cypher: str = "", answer: str = "I don't know.", bad: str | None = None) -> ScriptedChatModel:
    """A chat model for LangChain's extraction, Cypher and QA prompts; `bad`: text answered with prose."""

    def respond(messages) -> str:
        prompt = "\n".join(str(m.content) for m in messages)
        if "build a knowledge graph" in prompt:
            text = prompt.rsplit("Text:", 1)[1].strip()
            return "Sorry, I cannot do that." if bad and bad in text else json.dumps(relations(text))
        if "Generate Cypher statement" in prompt:
            return cypher
        if "Helpful Answer:" in prompt:
            return answer
        raise AssertionError(f"unexpected prompt: {prompt[:200]}")

    return ScriptedChatModel(respond=respond)


def run(driver, query: str, **params) -> list[dict]:
    records, _, _ = driver.execute_query(query, params)
    return [r.data() for r in records]


@pytest.fixture(scope="module")
def settings(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """A home with the test corpora in SQL; on teardown every Neo4j node of those corpora is deleted."""
    import neo4j

    home: Path = tmp_path_factory.mktemp("grl-home")
    s = Settings(home=home, neo4j_uri=neo4j_uri, llm_model=None)
    store = SqlStore(s.sql_url)
    for corpus in (CORPUS, FLAKY, BROKEN):
        store.ensure_corpus(corpus, "us-cfr")
        with store.session() as sess:
            store.upsert_provisions(
                sess,
                [
                    Provision(corpus=corpus, id=i, parent_id=p, kind=k, heading=h, text=t, order=n)
                    for n, (i, p, k, h, t) in enumerate(ROWS)
                ],
            )
    store.dispose()
    yield s
    auth = (s.neo4j_user, s.neo4j_password) if s.neo4j_password else None
    with neo4j.GraphDatabase.driver(neo4j_uri, auth=auth) as driver:
        run(
            driver,
            "MATCH (d:Document) WHERE d.corpus IN $c OPTIONAL MATCH (d)-[:MENTIONS]->(x) DETACH DELETE d, x",
            c=[CORPUS, FLAKY, BROKEN],
        )
        run(
            driver,
            "MATCH (n) WHERE (n:Section OR n:Entity) AND n.corpus IN $c DETACH DELETE n",
            c=[CORPUS, FLAKY, BROKEN],
        )


@pytest.fixture(scope="module")
def driver(settings: Settings):
    import neo4j

    auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
    with neo4j.GraphDatabase.driver(settings.neo4j_uri, auth=auth) as d:
        yield d


@pytest.fixture(scope="module")
def built(settings: Settings) -> tuple[GraphRagLangchainSystem, ScriptedChatModel]:
    """The graph of Subparts L and X of the test corpus, built once."""
    model = scripted()
    system = graph_rag_langchain_factory(settings, CORPUS, chat_model=model, subparts="L+X")
    system.warm_up(CORPUS)
    return system, model


def ask(settings: Settings, cypher: str, answer: str = "I don't know."):
    """A system over the already built graph, answering one question with the scripted Cypher and answer."""
    system = graph_rag_langchain_factory(
        settings, CORPUS, chat_model=scripted(cypher, answer), subparts="L+X"
    )
    system.warm_up(CORPUS)
    return system, system.search("Which provisions require guardrails?", 10)


def test_the_graph_has_one_document_node_per_provision_in_scope_carrying_its_id_and_corpus(built, driver):
    system, model = built
    docs = run(driver, "MATCH (d:Document {corpus: $c}) RETURN d.id AS id, d.provision_id AS pid", c=CORPUS)
    assert {d["pid"] for d in docs} == IN_L_AND_X
    assert {d["id"] for d in docs} == {f"{CORPUS}:{pid}" for pid in IN_L_AND_X}
    assert model.calls == 4 and system.report.written == 4 and system.report.failed == 0
    mentioned = run(
        driver,
        "MATCH (d:Document {corpus: $c})-[:MENTIONS]->(x {id: $x}) RETURN d.provision_id AS pid",
        c=CORPUS,
        x=f"Guardrail {TOKEN}",
    )
    assert [m["pid"] for m in mentioned] == ["1926.451(g)"]
    assert system.describe()["extraction"] == "prompt"  # the scripted model cannot bind tools


def test_a_second_build_sends_nothing_to_the_model(built, settings):
    model = scripted()
    again = graph_rag_langchain_factory(settings, CORPUS, chat_model=model, subparts="L+X")
    again.warm_up(CORPUS)
    assert model.calls == 0 and again.report.existing == 4 and again.report.sent == 0


def test_extracted_types_named_like_bifrosts_are_renamed(built, driver):
    labels = run(
        driver,
        "MATCH (:Document {corpus: $c})-[:MENTIONS]->(x) UNWIND labels(x) AS l RETURN DISTINCT l",
        c=CORPUS,
    )
    assert {r["l"] for r in labels} == {"__Entity__", "Equipment", "ExtractedEntity", "Component"}
    types = run(
        driver,
        "MATCH (:Document {corpus: $c})-[:MENTIONS]->()-[r]->() RETURN DISTINCT type(r) AS t",
        c=CORPUS,
    )
    assert {r["t"] for r in types} == {"REQUIRED_ON", "EXTRACTED_HAS"}


def test_the_answer_ranks_the_provisions_it_names_then_those_the_cypher_result_names(built, settings):
    cypher = (
        f"MATCH (d:Document {{corpus: '{CORPUS}'}})-[:MENTIONS]->(x) WHERE x.id STARTS WITH 'Guardrail' "
        "RETURN d.id AS provision"
    )
    _, result = ask(settings, cypher, "Side rails (§ 1926.1053 (b)) and guardrails; see also 1910.23(e).")
    # 1910.23(e) is not in the corpus
    assert [pid for pid, _ in result.ranked] == ["1926.1053(b)", "1926.451(g)"]
    assert result.cited == ["1926.1053(b)"] and not result.refused and "error" not in result.info
    _, result = ask(settings, cypher, "I don't know.")
    assert [pid for pid, _ in result.ranked] == ["1926.451(g)"] and result.cited == ["1926.451(g)"]


def test_a_bad_cypher_reply_gives_no_ids_and_records_the_error(built, settings):
    system, result = ask(settings, "MATCH (d:Document RETURN d")
    assert result.ranked == [] and result.cited == [] and not result.refused
    assert "Syntax" in result.info["error"] and system.describe()["question_errors"] == 1


@pytest.mark.parametrize(
    "cypher, why",
    [
        ("MATCH (s:Section) RETURN s.id", "Bifrost's own graph"),
        ("MATCH (d:Document)-[:MENTIONS|RELATES]->(x) RETURN d.id", "Bifrost's own graph"),
        (f"CREATE (d:Document {{corpus: '{CORPUS}', id: 'written'}}) RETURN d.id", "read access mode"),
    ],
)
def test_the_chain_can_neither_reach_bifrosts_graph_nor_write(built, settings, driver, cypher, why):
    _, result = ask(settings, cypher)
    assert result.ranked == [] and why in result.info["error"]
    assert not run(driver, "MATCH (d:Document {id: 'written'}) RETURN d")


def test_the_chain_schema_shows_the_baseline_graph_and_hides_bifrosts(built, driver):
    system, _ = built
    run(
        driver,
        "CREATE (a:Section {corpus: $c, uid: $c + ':a', id: 'a'})-[:HAS]->(b:Section {corpus: $c, uid: $c + "
        "':b', id: 'b'}), "
        "(e:Entity {corpus: $c, uid: $c + ':e', name: 'e'})-[:MENTIONED_IN]->(a), (e)-[:RELATES]->(e), "
        "(a)-[:REFERS_TO]->(b)",
        c=CORPUS,
    )
    system.rag.chain = None  # rebuilt over the current schema
    schema = system.rag.qa_chain().graph_schema
    assert (
        "Document" in schema
        and "MENTIONS" in schema
        and "ExtractedEntity" in schema
        and "EXTRACTED_HAS" in schema
    )
    for name in ("Section", "Entity", "CorpusMeta", "HAS", "REFERS_TO", "RELATES", "MENTIONED_IN"):
        assert not re.search(rf"\b{name}\b", schema), name


def test_a_failed_extraction_is_counted_and_retried_by_the_next_build(settings, driver):
    first = graph_rag_langchain_factory(
        settings, FLAKY, chat_model=scripted(bad="Ladders shall"), subparts="L+X"
    )
    first.warm_up(FLAKY)
    assert (first.report.sent, first.report.written, first.report.failed) == (4, 3, 1)
    assert first.report.errors[0].startswith("1926.1053(b): BadExtraction")
    model = scripted()
    second = graph_rag_langchain_factory(settings, FLAKY, chat_model=model, subparts="L+X")
    second.warm_up(FLAKY)
    assert model.calls == 1 and second.report.written == 1
    docs = run(driver, "MATCH (d:Document {corpus: $c}) RETURN d.provision_id AS pid", c=FLAKY)
    assert {d["pid"] for d in docs} == IN_L_AND_X


def test_limit_scopes_the_graph_to_the_first_provisions_with_text(built, settings):
    model = scripted()
    system = graph_rag_langchain_factory(settings, CORPUS, chat_model=model, limit=2)
    system.warm_up(CORPUS)  # 1926.451 and 1926.451(g), built above
    assert system.report.in_scope == 2 and model.calls == 0


def test_a_build_where_every_extraction_fails_skips_the_system_instead_of_scoring_zeros(settings, driver):
    system = graph_rag_langchain_factory(settings, BROKEN, chat_model=scripted(bad="."), subparts="L+X")
    with pytest.raises(
        SystemUnavailable,
        match=r"no provision could be turned into a graph \(4 failed; first: .*BadExtraction",
    ):
        system.warm_up(BROKEN)
    assert run(driver, "MATCH (d:Document {corpus: $c}) RETURN count(d) AS n", c=BROKEN) == [{"n": 0}]
