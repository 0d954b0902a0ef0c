"""Where the real Neo4j for integration and browser tests is: ``BIFROST_NEO4J_URI``.

Unset: a visible skip on a developer machine, a failure in CI (``CI=true``), so that CI never
passes by skipping. Start a server with ``docker/neo4j-launcher/start.sh``.
"""

from __future__ import annotations

import os

import pytest

HOW = "start one with docker/neo4j-launcher/start.sh and export BIFROST_NEO4J_URI=bolt://127.0.0.1:7687"


def neo4j_uri() -> str:
    """The Bolt URI of the test server, or skip (fail in CI) when none is configured."""
    uri = os.environ.get("BIFROST_NEO4J_URI")
    if not uri:
        if os.environ.get("CI") == "true":
            pytest.fail(f"BIFROST_NEO4J_URI is not set in CI; {HOW}")
        pytest.skip(f"BIFROST_NEO4J_URI is not set: no real Neo4j to test against ({HOW})")
    return uri


def neo4j_store(**kwargs):
    """A Neo4jGraphStore on the test server (user/password/database from BIFROST_NEO4J_* env)."""
    from bifrost.core.graph.neo4j_store import Neo4jGraphStore

    return Neo4jGraphStore(
        neo4j_uri(),
        os.environ.get("BIFROST_NEO4J_USER", "neo4j"),
        os.environ.get("BIFROST_NEO4J_PASSWORD", ""),
        os.environ.get("BIFROST_NEO4J_DATABASE", "neo4j"),
        **kwargs,
    )
