"""The team server's doors on the server stores: users, tokens and answer records in PostgreSQL, both
graphs in Neo4j. The same checks as on the embedded store (`tests/unit/bifrost/app/web/test_auth.py`)."""

from __future__ import annotations

import uuid

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.access import LOCAL
from bifrost.core.settings import Settings
from tests.integration.neo4j_env import neo4j_uri
from tests.integration.postgres_env import fresh_database
from tests.unit.bifrost.app.web.test_auth import (
    CREDENTIALS,
    Q,
    check_no_door_opens,
    check_other_corpus_closed,
    serve_two_corpora,
)

pytestmark = [pytest.mark.postgres, pytest.mark.neo4j]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("team-stores")
    uri = neo4j_uri()
    tag = uuid.uuid4().hex[:8]  # its own nodes on a shared Neo4j
    with fresh_database() as url:
        bf = Bifrost(Settings(home=root / "home", database_url=url, store="neo4j", neo4j_uri=uri))
        served = serve_two_corpora(bf, root, mini=f"mini-{tag}", secret=f"secret-{tag}")
        try:
            yield served
        finally:
            for corpus in (served.mini, served.secret):
                bf.graph.clear(corpus)
            bf.close()


@pytest.mark.parametrize("credential", CREDENTIALS)
def test_no_door_opens_without_a_live_token(served, credential):
    check_no_door_opens(served, credential)


def test_a_token_for_one_corpus_reads_nothing_of_another(served):
    check_other_corpus_closed(served)


def test_answers_are_recorded_in_postgresql_under_their_asker(served):
    r = served.client.post(
        "/api/ask",
        json={"question": Q, "corpus": served.mini},
        headers={"Authorization": f"Bearer {served.tokens['reader']}"},
    )
    assert r.status_code == 200
    record = served.bf.answer_log.get(r.json()["record_id"], LOCAL)
    assert (record.user, record.channel, record.corpus) == ("rita", "api", served.mini)
    assert record.citations == [c["id"] for c in r.json()["citations"]]
