#!/usr/bin/env bash
# The app container's start: ingest the corpora named in BIFROST_INGEST that the home lacks (from the shared
# folder when one is mounted at BIFROST_SHARED_DIR, else from eCFR), make sure someone can log in (tokens are
# required off loopback: with no user yet an admin is created and its token printed once, here, in the logs),
# then serve. BIFROST_ENTRYPOINT_DRY=1 prints the serve command instead of running it (the tests run this
# script against a local home).
set -euo pipefail
BIFROST=${BIFROST:-bifrost}
PORT=${BIFROST_PORT:-8000}
for corpus in ${BIFROST_INGEST//,/ }; do
  if ! "$BIFROST" editions --corpus "$corpus" >/dev/null 2>&1; then
    echo "entrypoint: ingesting $corpus (first start; the navigator graph is built with it)"
    "$BIFROST" ingest --corpus "$corpus"
  fi
done
if [[ "${BIFROST_AUTH:-auto}" != "off" ]] && [[ "$("$BIFROST" users list --json)" == "[]" ]]; then
  echo "entrypoint: no user yet: creating 'admin' (every corpus). Its token, shown once, logs you in:"
  "$BIFROST" users add admin --role admin --corpus all
fi
if [[ "${BIFROST_ENTRYPOINT_DRY:-0}" == "1" ]]; then
  echo "$BIFROST serve --host 0.0.0.0 --port $PORT"
  exit 0
fi
exec "$BIFROST" serve --host 0.0.0.0 --port "$PORT"
