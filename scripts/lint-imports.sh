#!/usr/bin/env bash
# Layer contracts (import-linter, contracts in pyproject.toml) checked on the package as it installs:
# graph_builders/, retrieval/, eval/ and prompts/ become subpackages of `bifrost` only in the wheel
# (setup.py's package-dir mapping), so the wheel is built and unpacked, and the linter reads that tree.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=$(realpath -s "${PYTHON:-.venv/bin/python}")
LINT=$(realpath -s "${LINT_IMPORTS:-$(dirname "$PY")/lint-imports}")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$PY" -m pip wheel -q --no-deps --no-build-isolation -w "$tmp/wheel" . >/dev/null 2>&1 \
  || "$PY" -m pip wheel -q --no-deps -w "$tmp/wheel" .
mkdir "$tmp/tree"
"$PY" -m zipfile -e "$tmp"/wheel/*.whl "$tmp/tree"
config="$PWD/pyproject.toml"
cd "$tmp/tree"
"$LINT" --config "$config" "$@"
