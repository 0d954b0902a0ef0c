#!/usr/bin/env bash
# Installs the Debian packages the tests need (Java and Maven for the dev Neo4j, PostgreSQL's
# server for the SQL-store and migration tests, Chromium for browser tests, docker-compose to
# validate the compose file, cmake and a C++ compiler to build the local chat model server) when missing and root.
# A machine without them still runs the tests: the related ones skip visibly, or fail when CI=true.
set -euo pipefail
need=()
command -v java >/dev/null || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || need+=(postgresql)
command -v chromium >/dev/null || need+=(chromium)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v curl >/dev/null || need+=(curl)
if ((${#need[@]})); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "install-system-deps: missing ${need[*]} (not root or no apt-get): related tests will skip" >&2
  fi
fi
