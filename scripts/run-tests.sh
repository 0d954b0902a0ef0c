#!/usr/bin/env bash
# Runs the whole test suite. Starts the dev Neo4j when Java and Maven are present, the dev
# PostgreSQL when its server binaries are, and the local chat model server (llama.cpp, built once per
# machine) when cmake and a compiler are; each is required when CI=true; otherwise their tests skip
# with a visible reason. For the whole suite (and always in CI) it builds the whole-corpus OSHA test home first,
# once, and passes it to the tests as BIFROST_TEST_OSHA_HOME.
set -uo pipefail
rc=""
PY=${1:-.venv/bin/python}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
started_neo4j=0
if [[ -z "${BIFROST_NEO4J_URI:-}" ]]; then
  if command -v java >/dev/null && command -v mvn >/dev/null; then
    if PYTHON="$PY" BIFROST_NEO4J_START_TIMEOUT=${BIFROST_NEO4J_START_TIMEOUT:-300} bash docker/neo4j-launcher/start.sh; then
      export BIFROST_NEO4J_URI=bolt://127.0.0.1:${BIFROST_NEO4J_BOLT_PORT:-7687}
      started_neo4j=1
    elif [[ "${CI:-}" == "true" ]]; then
      echo "run-tests: Neo4j could not start and CI=true: failing" >&2
      exit 1
    fi
  else
    echo "run-tests: no Java/Maven here: Neo4j tests will be skipped (set BIFROST_NEO4J_URI to use a server)" >&2
  fi
fi
started_pg=0
pg_tmp=""
if [[ -z "${BIFROST_TEST_PG_URL:-}" ]]; then
  # A fresh server for this run, in a folder the postgres user can reach when we are root, on a free port
  # unless BIFROST_PG_PORT says which (a `make postgres` server on 5433 is left alone).
  if [[ -z "${BIFROST_PG_RUN:-}" ]]; then
    pg_tmp="$(mktemp -d /var/tmp/bifrost-pg-test-XXXXXX)" && chmod 755 "$pg_tmp"
    export BIFROST_PG_RUN="$pg_tmp/run"
  fi
  if [[ -z "${BIFROST_PG_PORT:-}" ]]; then
    BIFROST_PG_PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    export BIFROST_PG_PORT
  fi
  if bash docker/postgres-launcher/start.sh; then
    BIFROST_TEST_PG_URL="$(cat "$BIFROST_PG_RUN/url")"
    export BIFROST_TEST_PG_URL
    started_pg=1
  elif [[ "${CI:-}" == "true" ]]; then
    echo "run-tests: PostgreSQL could not start and CI=true: failing" >&2
    [[ $started_neo4j == 1 ]] && bash docker/neo4j-launcher/stop.sh
    exit 1
  else
    echo "run-tests: no PostgreSQL here: its tests will be skipped (make postgres, or set BIFROST_TEST_PG_URL)" >&2
  fi
fi
started_llm=0
if [[ -z "${BIFROST_TEST_LLM_URL:-}" ]]; then
  if command -v cmake >/dev/null && command -v g++ >/dev/null; then
    if BIFROST_TEST_LLM_URL="$(PYTHON=python3 bash docker/llm-launcher/start.sh | tail -1)"; then
      export BIFROST_TEST_LLM_URL
      started_llm=1
    elif [[ "${CI:-}" == "true" ]]; then
      echo "run-tests: the local chat model server could not start and CI=true: failing" >&2
      [[ $started_neo4j == 1 ]] && bash docker/neo4j-launcher/stop.sh
      [[ $started_pg == 1 ]] && bash docker/postgres-launcher/stop.sh
      exit 1
    fi
  else
    echo "run-tests: no cmake/g++ here: the local chat model tests will be skipped (make llm, or set BIFROST_TEST_LLM_URL)" >&2
  fi
fi
echo "run-tests: services ready after $SECONDS s" >&2
osha_tmp=""
if [[ -z "${BIFROST_TEST_OSHA_HOME:-}" && ( $# -le 1 || "${CI:-}" == "true" ) ]]; then
  # The whole-corpus test home, built once before pytest (outside every test's timeout); see tests/osha_home.py.
  osha_tmp="$(mktemp -d /var/tmp/bifrost-osha-test-XXXXXX)"
  if "$PY" -m tests.osha_home "$osha_tmp/home"; then
    export BIFROST_TEST_OSHA_HOME="$osha_tmp/home"
  elif [[ "${CI:-}" == "true" ]]; then
    echo "run-tests: the OSHA test home could not be built and CI=true: failing" >&2
    rc=1
  else
    echo "run-tests: no OSHA test home built here: the osha_home fixture builds it (or skips)" >&2
  fi
fi
if [[ -z "${rc:-}" ]]; then
  "$PY" -m pytest "${@:2}"
  rc=$?
fi
if [[ -n "$osha_tmp" ]]; then rm -rf "$osha_tmp"; fi
if [[ $started_llm == 1 ]]; then bash docker/llm-launcher/stop.sh || true; fi
if [[ $started_neo4j == 1 ]]; then bash docker/neo4j-launcher/stop.sh || true; fi
if [[ $started_pg == 1 ]]; then bash docker/postgres-launcher/stop.sh || true; fi
if [[ -n "$pg_tmp" ]]; then rm -rf "$pg_tmp"; fi
exit $rc
