#!/usr/bin/env bash
# The main job: ingest 29 CFR 1926, build the Document Navigator Graph, show its figures
# and a provision with its cross-references.
set -euo pipefail
BIFROST=${1:-bifrost}
echo "== ingest 29 CFR 1926 and build the navigator graph (state in ${BIFROST_HOME:-~/.bifrost})"
"$BIFROST" ingest --corpus osha-1926
echo "== graph figures"
"$BIFROST" graph stats --corpus osha-1926
echo "== a provision and its references"
"$BIFROST" graph show "1926.502(k)" --corpus osha-1926
