#!/usr/bin/env bash
# Start the Bifrost dev/CI PostgreSQL (Debian's postgresql binaries, no Docker) in the background.
#
#   docker/postgres-launcher/start.sh          # initdb on first use, start, create the database
#   export BIFROST_TEST_PG_URL=$(cat docker/postgres-launcher/.runtime/url)   # tests
#   export BIFROST_DATABASE_URL=$(cat docker/postgres-launcher/.runtime/url)  # or Bifrost itself
#   docker/postgres-launcher/stop.sh
#
# Environment (all optional):
#   BIFROST_PG_PORT      TCP port (default 5433, beside a system server on 5432)
#   BIFROST_PG_HOST      listen address (default 127.0.0.1; loopback only: 127.x.x.x, ::1, localhost)
#   BIFROST_PG_RUN       runtime folder: data/, postgres.log, password, url (default <this folder>/.runtime)
#   BIFROST_PG_DB        database to create (default bifrost_test)
#   BIFROST_PG_USER      superuser created by initdb (default bifrost)
#   BIFROST_PG_PASSWORD  its password (default: random at initdb, kept in $BIFROST_PG_RUN/password)
#   BIFROST_PG_BIN       folder of initdb/pg_ctl (default: newest /usr/lib/postgresql/*/bin, else pg_config --bindir)
#   BIFROST_PG_START_TIMEOUT  seconds to wait (default 60)
# PostgreSQL refuses to run as root: as root the server runs as the `postgres` system user (runuser),
# which then owns the runtime folder. The last line printed is the URL to export.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${BIFROST_PG_RUN:-$HERE/.runtime}"
PORT="${BIFROST_PG_PORT:-5433}"
HOST="${BIFROST_PG_HOST:-127.0.0.1}"
DB="${BIFROST_PG_DB:-bifrost_test}"
PGUSER_NAME="${BIFROST_PG_USER:-bifrost}"
TIMEOUT="${BIFROST_PG_START_TIMEOUT:-60}"
DATA="$RUN_DIR/data"
LOG_FILE="$RUN_DIR/postgres.log"
PW_FILE="$RUN_DIR/password"

case "$HOST" in
  127.*|localhost|::1) ;;
  *)
    echo "refusing BIFROST_PG_HOST=$HOST: this dev PostgreSQL listens on a loopback address only" \
         "(127.0.0.1, ::1, localhost); for a shared server use docker/docker-compose.yml (requires POSTGRES_PASSWORD)" >&2
    exit 2
    ;;
esac

find_bin() {
  if [[ -n "${BIFROST_PG_BIN:-}" ]]; then echo "$BIFROST_PG_BIN"; return; fi
  local newest
  newest="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  if [[ -n "$newest" ]]; then echo "$newest"; return; fi
  if command -v pg_config >/dev/null; then pg_config --bindir; return; fi
  echo ""
}
BIN="$(find_bin)"
if [[ -z "$BIN" || ! -x "$BIN/pg_ctl" || ! -x "$BIN/initdb" ]]; then
  echo "no PostgreSQL server binaries found (looked in /usr/lib/postgresql/*/bin); install them with" \
       "'apt-get install postgresql' (scripts/install-system-deps.sh does it as root) or set BIFROST_PG_BIN" >&2
  exit 1
fi

# Who runs the server: this user, or `postgres` when we are root.
AS=()
if [[ $(id -u) == 0 ]]; then
  if ! id postgres >/dev/null 2>&1; then
    echo "running as root but there is no 'postgres' system user to run the server (apt-get install postgresql creates it)" >&2
    exit 1
  fi
  AS=(runuser -u postgres --)
fi

mkdir -p "$RUN_DIR"
if ((${#AS[@]})); then
  chown postgres: "$RUN_DIR"
  if ! "${AS[@]}" test -w "$RUN_DIR"; then
    echo "the postgres user cannot write $RUN_DIR (a parent folder is closed to it);" \
         "set BIFROST_PG_RUN to a folder it can reach, e.g. /var/tmp/bifrost-pg" >&2
    exit 1
  fi
fi

if [[ ! -f "$PW_FILE" ]]; then
  if [[ -n "${BIFROST_PG_PASSWORD:-}" ]]; then
    printf '%s' "$BIFROST_PG_PASSWORD" > "$PW_FILE"
  else
    (set +o pipefail; tr -dc 'A-Za-z0-9' < /dev/urandom | head -c 24) > "$PW_FILE"
  fi
  chmod 600 "$PW_FILE"
  if ((${#AS[@]})); then chown postgres: "$PW_FILE"; fi
fi
PASSWORD="$(cat "$PW_FILE")"
URL="postgresql+psycopg://$PGUSER_NAME:$PASSWORD@$HOST:$PORT/$DB"

if [[ ! -f "$DATA/PG_VERSION" ]]; then
  echo "initdb $DATA ($("$BIN/initdb" --version))"
  if ! "${AS[@]}" "$BIN/initdb" -D "$DATA" -U "$PGUSER_NAME" --pwfile="$PW_FILE" -E UTF8 --locale=C \
      --auth-host=scram-sha-256 --auth-local=scram-sha-256 > "$RUN_DIR/initdb.log" 2>&1; then
    echo "initdb failed; last lines of $RUN_DIR/initdb.log:" >&2
    tail -n 20 "$RUN_DIR/initdb.log" >&2
    exit 1
  fi
  # TCP only (no Unix socket: its path length and folder would depend on where this runs);
  # commits are not flushed one by one (a crash loses the last ones, never corrupts): dev and CI only.
  cat >> "$DATA/postgresql.conf" <<'CONF'
# --- Bifrost dev/CI launcher ---
unix_socket_directories = ''
synchronous_commit = off
max_connections = 200
CONF
fi

psql_admin() {
  PGPASSWORD="$PASSWORD" "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$HOST" -p "$PORT" -U "$PGUSER_NAME" -d postgres "$@"
}

if "${AS[@]}" "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  if psql_admin -tAc 'SELECT 1' >/dev/null 2>&1; then
    echo "postgres already running at $HOST:$PORT (data $DATA)"
    printf '%s\n' "$URL" > "$RUN_DIR/url"
    echo "export BIFROST_TEST_PG_URL=$URL"
    exit 0
  fi
  echo "a postgres server runs on $DATA but does not answer on $HOST:$PORT; run stop.sh first" >&2
  exit 1
fi

if (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; then
  echo "port $PORT on $HOST is already in use by another process (set BIFROST_PG_PORT)" >&2
  exit 1
fi

touch "$LOG_FILE"
if ((${#AS[@]})); then chown postgres: "$LOG_FILE"; fi
if ! "${AS[@]}" "$BIN/pg_ctl" -D "$DATA" -l "$LOG_FILE" -w -t "$TIMEOUT" \
    -o "-h $HOST -p $PORT" start >/dev/null; then
  echo "postgres did not start on $HOST:$PORT within ${TIMEOUT}s; last lines of $LOG_FILE:" >&2
  tail -n 30 "$LOG_FILE" >&2
  exit 1
fi

if [[ -z "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")" ]]; then
  psql_admin -c "CREATE DATABASE \"$DB\""
fi
printf '%s\n' "$URL" > "$RUN_DIR/url"
chmod 600 "$RUN_DIR/url"

echo "postgres running ($("$BIN/postgres" --version)) on $HOST:$PORT, database $DB, superuser $PGUSER_NAME"
echo "log: $LOG_FILE  data: $DATA  url (with password): $RUN_DIR/url"
echo "export BIFROST_TEST_PG_URL=$URL"
