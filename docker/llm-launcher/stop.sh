#!/usr/bin/env bash
# Stop the local chat model server started by start.sh (its runtime stays cached for the next start).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${BIFROST_LLM_RUN:-$HERE/.runtime}"
if [[ ! -f "$RUN_DIR/pid" ]]; then
  echo "no local chat model server is running (no $RUN_DIR/pid)" >&2
  exit 0
fi
pid="$(cat "$RUN_DIR/pid")"
kill "$pid" 2>/dev/null || true
for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
kill -9 "$pid" 2>/dev/null || true
rm -f "$RUN_DIR/pid" "$RUN_DIR/url"
echo "stopped the local chat model server (pid $pid)" >&2
