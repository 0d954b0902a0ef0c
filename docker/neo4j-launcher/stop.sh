#!/usr/bin/env bash
# Stop the Neo4j started by start.sh: SIGTERM (the launcher closes the store cleanly), then
# SIGKILL after BIFROST_NEO4J_STOP_TIMEOUT seconds (default 60).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${BIFROST_NEO4J_RUN:-$HERE/.runtime}"
PID_FILE="$RUN_DIR/neo4j.pid"
TIMEOUT="${BIFROST_NEO4J_STOP_TIMEOUT:-60}"

if [[ ! -f "$PID_FILE" ]]; then
  echo "neo4j not running (no $PID_FILE)"
  exit 0
fi
PID="$(cat "$PID_FILE")"
alive() { kill -0 "$1" 2>/dev/null && [[ "$(ps -o stat= -p "$1" 2>/dev/null)" != Z* ]]; }
if ! alive "$PID"; then
  echo "neo4j not running (stale pid $PID)"
  rm -f "$PID_FILE"
  exit 0
fi

kill -TERM "$PID"
deadline=$((SECONDS + TIMEOUT))
while alive "$PID"; do
  if (( SECONDS >= deadline )); then
    echo "neo4j (pid $PID) did not stop within ${TIMEOUT}s; killing it" >&2
    kill -KILL "$PID" 2>/dev/null || true
    break
  fi
  sleep 0.5
done
rm -f "$PID_FILE"
echo "neo4j stopped (pid $PID)"
