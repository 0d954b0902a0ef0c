"""Every saved analyst query in docker/neo4j/queries.cypher runs on a real Neo4j and returns
rows, on an OSHA-shaped graph loaded through the Neo4j store (see sample_dng.load_graph; the
full OSHA graph can be passed to it the same way)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.integration.neo4j_env import neo4j_store
from tests.integration.sample_dng import sample_store

pytestmark = pytest.mark.neo4j

QUERIES = Path(__file__).resolve().parents[2] / "docker" / "neo4j" / "queries.cypher"
HEADER = re.compile(r"^// ==== (?P<key>[a-z_]+): (?P<title>.+)$")
PARAM = re.compile(r"^// :param (?P<name>\w+) => (?P<value>.+)$")


def saved_queries(path: Path = QUERIES) -> dict[str, tuple[str, dict[str, object]]]:
    """key -> (query text, default parameters), parsed from the file's header comments."""
    out: dict[str, tuple[str, dict[str, object]]] = {}
    key = None
    body: list[str] = []
    params: dict[str, object] = {}
    for line in [*path.read_text().splitlines(), "// ==== end: end"]:
        if m := HEADER.match(line):
            if key:
                out[key] = ("\n".join(body).strip().rstrip(";"), params)
            key, body, params = m["key"], [], {}
        elif key and (m := PARAM.match(line)):
            params[m["name"]] = ast.literal_eval(m["value"])
        elif key and not line.startswith("//"):
            body.append(line)
    return out


# The sample goes into its own corpus, so that an analyst's real osha-1926 graph on the same
# server is never touched; each query runs with its defaults but this corpus.
SAMPLE_CORPUS = "osha-1926-saved-queries-test"

QUERY_KEYS = [
    "cross_reference_neighbourhood",
    "provisions_sharing_an_entity",
    "most_referenced_provisions",
    "paths_between_two_provisions",
    "precedents_citing_a_provision",
    "most_interpreted_provisions",
]


def test_the_file_holds_the_named_queries_with_parameters():
    queries = saved_queries()
    assert list(queries) == QUERY_KEYS
    assert queries["cross_reference_neighbourhood"][1]["id"] == "1926.502(k)"
    for text, params in queries.values():
        assert ";" not in text
        for name in params:
            assert f"${name}" in text


@pytest.fixture(scope="module")
def loaded_store():
    yield from sample_store(SAMPLE_CORPUS)


@pytest.mark.parametrize("key", QUERY_KEYS)
def test_each_saved_query_returns_rows(loaded_store, key):
    text, params = saved_queries()[key]
    params = {**params, "corpus": SAMPLE_CORPUS}
    with loaded_store.driver.session(database=loaded_store.database) as s:
        rows = list(s.run(text, params))
    assert rows, f"saved query {key} returned no rows"
    assert all(any(v is not None for v in r.values()) for r in rows)


def test_the_neighbourhood_of_1926_502_k_reaches_the_provisions_that_cite_it(loaded_store):
    text, params = saved_queries()["cross_reference_neighbourhood"]
    params = {**params, "corpus": SAMPLE_CORPUS}
    with loaded_store.driver.session(database=loaded_store.database) as s:
        ids = {n["id"] for r in s.run(text, params) for n in r["path"].nodes}
    assert {"1926.501(b)(2)(i)", "1926.501(b)(12)", "1926.501(b)(13)"} <= ids


def test_the_most_referenced_provision_is_the_fall_protection_plan(loaded_store):
    text, params = saved_queries()["most_referenced_provisions"]
    params = {**params, "corpus": SAMPLE_CORPUS}
    with loaded_store.driver.session(database=loaded_store.database) as s:
        top = s.run(text, params).data()[0]
    assert top["provision"] == "1926.502(k)" and top["references"] == 3


def test_precedents_citing_a_section_reach_its_paragraphs_and_keep_outside_citations(loaded_store):
    text, params = saved_queries()["precedents_citing_a_provision"]
    params = {**params, "corpus": SAMPLE_CORPUS, "id": "1926.502"}
    with loaded_store.driver.session(database=loaded_store.database) as s:
        rows = s.run(text, params).data()
        outside = s.run(
            "MATCH (p:Precedent {corpus: $c, id: 'loi-edge'}) RETURN p.outside AS o", c=SAMPLE_CORPUS
        ).single()["o"]
    assert [(r["precedent"], sorted(r["cites"])) for r in rows] == [
        ("loi-plan", ["1926.502(k)(1)"]),
        ("loi-edge", ["1926.502(k)"]),
    ]
    assert outside == ["1910.28"]


@pytest.mark.slow
@pytest.mark.parametrize("key", QUERY_KEYS)
def test_each_saved_query_returns_rows_on_the_real_osha_graph(osha_in_neo4j, key):
    """The analyst's case: both graphs of all of Part 1926 exported, each query with its own defaults."""
    text, params = saved_queries()[key]
    store = neo4j_store()
    try:
        with store.driver.session(database=store.database) as s:
            rows = list(s.run(text, params))
    finally:
        store.close()
    assert rows, f"saved query {key} returned no rows on osha-1926"
