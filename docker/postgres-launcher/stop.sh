#!/usr/bin/env bash
# Stop the PostgreSQL started by start.sh (fast shutdown: open sessions are rolled back, data kept).
# Same environment as start.sh (BIFROST_PG_RUN, BIFROST_PG_BIN); BIFROST_PG_STOP_TIMEOUT seconds (default 60).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${BIFROST_PG_RUN:-$HERE/.runtime}"
DATA="$RUN_DIR/data"
TIMEOUT="${BIFROST_PG_STOP_TIMEOUT:-60}"
BIN="${BIFROST_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)}"
[[ -n "$BIN" ]] || BIN="$(pg_config --bindir 2>/dev/null || true)"

if [[ ! -f "$DATA/postmaster.pid" ]]; then
  echo "postgres not running (no $DATA/postmaster.pid)"
  exit 0
fi
AS=()
if [[ $(id -u) == 0 ]]; then AS=(runuser -u postgres --); fi
if ! "${AS[@]}" "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  echo "postgres not running (stale $DATA/postmaster.pid)"
  exit 0
fi
"${AS[@]}" "$BIN/pg_ctl" -D "$DATA" -m fast -w -t "$TIMEOUT" stop >/dev/null
echo "postgres stopped (data kept in $DATA)"
