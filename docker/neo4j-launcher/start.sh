#!/usr/bin/env bash
# Start the Bifrost dev/CI Neo4j (5.26 Community, in-process harness) in the background.
#
#   docker/neo4j-launcher/start.sh        # builds the launcher with Maven if needed
#   export BIFROST_NEO4J_URI=bolt://127.0.0.1:7687
#   docker/neo4j-launcher/stop.sh
#
# Environment (all optional):
#   BIFROST_NEO4J_BOLT_PORT (7687), BIFROST_NEO4J_HTTP_PORT (7474), BIFROST_NEO4J_HOST (127.0.0.1;
#                       auth is off, so only a loopback address is accepted: 127.x.x.x, ::1, localhost)
#   BIFROST_NEO4J_RUN   runtime folder for pid + log     (default: <this folder>/.runtime)
#   BIFROST_NEO4J_DATA  graph data, kept across restarts  (default: $BIFROST_NEO4J_RUN/data)
#   BIFROST_NEO4J_JAVA_OPTS  JVM options                  (default: -Xms256m -Xmx1g)
#   BIFROST_NEO4J_START_TIMEOUT  seconds to wait for Bolt (default: 180)
#   PYTHON  interpreter used for the Bolt check (default: python3; falls back to a TCP check
#           when it cannot import the neo4j driver)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${BIFROST_NEO4J_RUN:-$HERE/.runtime}"
export BIFROST_NEO4J_DATA="${BIFROST_NEO4J_DATA:-$RUN_DIR/data}"
export BIFROST_NEO4J_BOLT_PORT="${BIFROST_NEO4J_BOLT_PORT:-7687}"
export BIFROST_NEO4J_HTTP_PORT="${BIFROST_NEO4J_HTTP_PORT:-7474}"
export BIFROST_NEO4J_HOST="${BIFROST_NEO4J_HOST:-127.0.0.1}"
JAVA_OPTS="${BIFROST_NEO4J_JAVA_OPTS:--Xms256m -Xmx1g}"
TIMEOUT="${BIFROST_NEO4J_START_TIMEOUT:-180}"
PYTHON="${PYTHON:-python3}"
PID_FILE="$RUN_DIR/neo4j.pid"
LOG_FILE="$RUN_DIR/neo4j.log"
JAR="$HERE/target/neo4j-launcher.jar"
URI="bolt://$BIFROST_NEO4J_HOST:$BIFROST_NEO4J_BOLT_PORT"

case "$BIFROST_NEO4J_HOST" in
  127.*|localhost|::1) ;;
  *)
    echo "refusing BIFROST_NEO4J_HOST=$BIFROST_NEO4J_HOST: this dev Neo4j runs with auth off, so it listens on a" \
         "loopback address only (127.0.0.1, ::1, localhost); for a shared server use docker/docker-compose.yml" \
         "(requires NEO4J_AUTH)" >&2
    exit 2
    ;;
esac

mkdir -p "$RUN_DIR" "$BIFROST_NEO4J_DATA"

bolt_ready() {
  if "$PYTHON" -c 'import neo4j' 2>/dev/null; then
    "$PYTHON" - "$URI" <<'PY' 2>/dev/null
import sys
from neo4j import GraphDatabase
with GraphDatabase.driver(sys.argv[1], auth=None, connection_timeout=2) as d:
    d.verify_connectivity()
PY
  else
    (exec 3<>"/dev/tcp/$BIFROST_NEO4J_HOST/$BIFROST_NEO4J_BOLT_PORT") 2>/dev/null
  fi
}

# Alive means signalable and not a zombie (a JVM killed hard whose parent has not reaped it yet).
alive() { kill -0 "$1" 2>/dev/null && [[ "$(ps -o stat= -p "$1" 2>/dev/null)" != Z* ]]; }

if [[ -f "$PID_FILE" ]] && alive "$(cat "$PID_FILE")"; then
  if bolt_ready; then
    echo "neo4j already running (pid $(cat "$PID_FILE")) at $URI"
    exit 0
  fi
  echo "neo4j process $(cat "$PID_FILE") exists but $URI does not answer; run stop.sh first" >&2
  exit 1
fi
rm -f "$PID_FILE"

if (exec 3<>"/dev/tcp/$BIFROST_NEO4J_HOST/$BIFROST_NEO4J_BOLT_PORT") 2>/dev/null; then
  echo "port $BIFROST_NEO4J_BOLT_PORT on $BIFROST_NEO4J_HOST is already in use by another process" >&2
  exit 1
fi

# Build when the jar is missing or older than the sources.
if [[ ! -f "$JAR" || -n "$(find "$HERE/pom.xml" "$HERE/src" -newer "$JAR" -type f 2>/dev/null | head -1)" ]]; then
  echo "building neo4j launcher (mvn package; first build downloads ~250 MB into ~/.m2)..."
  if ! mvn -q -B -Dstyle.color=never -f "$HERE/pom.xml" package > "$RUN_DIR/build.log" 2>&1; then
    echo "maven build failed; last lines of $RUN_DIR/build.log:" >&2
    tail -n 40 "$RUN_DIR/build.log" >&2
    exit 1
  fi
fi

# APOC must be on the JVM classpath (its extension factories register ApocConfig) *and* in the
# plugin folder (procedures are loaded from there); see the launcher's README.
# shellcheck disable=SC2086
nohup java $JAVA_OPTS -cp "$JAR:$HERE/target/lib/*:$HERE/target/plugins/*" dev.bifrost.neo4j.Launcher \
  --plugins "$HERE/target/plugins" > "$LOG_FILE" 2>&1 < /dev/null &
echo $! > "$PID_FILE"
PID="$(cat "$PID_FILE")"

deadline=$((SECONDS + TIMEOUT))
until bolt_ready; do
  if ! alive "$PID"; then
    echo "neo4j exited during start-up; last lines of $LOG_FILE:" >&2
    tail -n 40 "$LOG_FILE" >&2
    rm -f "$PID_FILE"
    exit 1
  fi
  if (( SECONDS >= deadline )); then
    echo "neo4j did not answer on $URI within ${TIMEOUT}s; last lines of $LOG_FILE:" >&2
    tail -n 40 "$LOG_FILE" >&2
    kill "$PID" 2>/dev/null || true
    rm -f "$PID_FILE"
    exit 1
  fi
  sleep 1
done

echo "neo4j running (pid $PID): $URI, browser http://$BIFROST_NEO4J_HOST:$BIFROST_NEO4J_HTTP_PORT/browser/"
echo "auth is OFF (development only): listening on $BIFROST_NEO4J_HOST (loopback), reachable from this machine only"
echo "log: $LOG_FILE  data: $BIFROST_NEO4J_DATA"
echo "export BIFROST_NEO4J_URI=$URI"
