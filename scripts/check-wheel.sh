#!/usr/bin/env bash
# The product as users install it: build the wheel, check it holds one top-level package (`bifrost`)
# and every prompt file, install it into a fresh virtual environment, and from a folder outside the
# checkout import the public API, load every agent prompt, `bifrost ingest` a small corpus and
# `bifrost ask` a question whose answer cites provisions. CI runs it (.ci/run); so can you.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=$(realpath -s "${PYTHON:-.venv/bin/python}")
REPO=$PWD
work="$(mktemp -d /tmp/bifrost-wheel-XXXXXX)"
trap 'rm -rf "$work"' EXIT
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
echo "check-wheel: building the wheel"
"$PY" -m pip wheel -q --no-deps --no-build-isolation -w "$work/dist" . >/dev/null 2>&1 || "$PY" -m pip wheel -q --no-deps -w "$work/dist" .
wheel=$(ls "$work"/dist/bifrost_rag-*.whl)
"$PY" - "$wheel" "$REPO/prompts" <<'PYCODE'
import sys, zipfile
from pathlib import Path
names = zipfile.ZipFile(sys.argv[1]).namelist()
top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
assert top == {"bifrost"}, f"the wheel must hold one top-level package, bifrost; it holds {sorted(top)}"
prompts = {str(p.relative_to(sys.argv[2])) for p in Path(sys.argv[2]).rglob("*.txt")}
shipped = {n.removeprefix("bifrost/prompts/") for n in names if n.startswith("bifrost/prompts/") and n.endswith(".txt")}
assert prompts == shipped, f"prompt files missing from the wheel: {sorted(prompts - shipped)}"
print(f"check-wheel: {Path(sys.argv[1]).name}: one top-level package, {len(shipped)} prompt files")
PYCODE
echo "check-wheel: installing into a fresh virtual environment (dependencies from the pip cache when present)"
"$PY" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --upgrade pip
"$work/venv/bin/pip" install -q "$wheel"
cd "$work"  # outside the checkout: nothing can come from the repository's folders
"$work/venv/bin/python" - <<'PYCODE'
import bifrost
from bifrost import Bifrost, Settings  # noqa: F401  (the public API)
from bifrost.core.prompts import available_versions, default_prompts_dir, load_prompt
root = default_prompts_dir()
assert "site-packages" in str(root), root
agents = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))
for agent in agents:
    for version in available_versions(agent):
        load_prompt(agent, version)
print(f"check-wheel: imported bifrost from {bifrost.__file__}; {len(agents)} agents' prompts load from {root}")
PYCODE
"$work/venv/bin/bifrost" --home "$work/home" ingest "$REPO/tests/fixtures/mini/part-mini.json" --corpus mini >/dev/null
"$work/venv/bin/bifrost" --home "$work/home" ask "What must an employee constructing a leading edge be protected by?" \
  --corpus mini --json > "$work/answer.json"
"$work/venv/bin/python" - "$work/answer.json" <<'PYCODE'
import json, sys
answer = json.load(open(sys.argv[1]))
assert not answer["refused"] and answer["citations"], answer["text"]
print(f"check-wheel: ask answered with {len(answer['citations'])} citation(s): {', '.join(c['id'] for c in answer['citations'])}")
PYCODE
if docker info >/dev/null 2>&1; then  # where a Docker engine runs: the image gets the same check
  echo "check-wheel: the Docker image"
  docker build -q -f "$REPO/docker/Dockerfile" -t bifrost-check "$REPO" >/dev/null
  docker run --rm -e HF_HUB_OFFLINE=1 bifrost-check python -c \
    "from bifrost import Bifrost; from bifrost.core.prompts import load_prompt; load_prompt('answer'); print('check-wheel: image ok')"
else
  echo "check-wheel: no Docker engine here: the image is not checked"
fi
echo "check-wheel: passed"
