"""`bifrost serve --workers 4` on one PostgreSQL and one Neo4j: each forked worker opens its own SQL
pool and Neo4j driver (none is shared across the fork) and answers as one worker does."""

from __future__ import annotations

import os
import uuid

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.integration.neo4j_env import neo4j_uri
from tests.integration.postgres_env import fresh_database
from tests.unit.bifrost.app.web.test_workers import check_four_workers_answer_as_one
from tests.unit.mini_corpus import MINI, build_corpus

pytestmark = [pytest.mark.postgres, pytest.mark.neo4j]


def test_four_workers_on_postgresql_and_neo4j_answer_as_one_worker_does(tmp_path):
    uri = neo4j_uri()
    corpus = f"mini-{uuid.uuid4().hex[:8]}"  # its own nodes on a shared Neo4j
    with fresh_database() as url:
        settings = Settings(home=tmp_path / "home", database_url=url, store="neo4j", neo4j_uri=uri)
        bf = Bifrost(settings)
        try:
            build_corpus(bf, corpus, MINI)
            env = {
                "BIFROST_DATABASE_URL": url,
                "BIFROST_STORE": "neo4j",
                "BIFROST_NEO4J_URI": uri,
                **{k: v for k, v in os.environ.items() if k.startswith("BIFROST_NEO4J_")},
            }
            check_four_workers_answer_as_one(settings.home, corpus, env)
        finally:
            bf.graph.clear(corpus)
            bf.close()
