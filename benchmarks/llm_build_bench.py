"""Cost and speed of the LLM entity build on a chat model server, and what the LLM cache saves on a rerun.

Builds the mini corpus offline in a scratch home, then runs `bifrost build entities --extractor llm` three
times: cold (every agent call goes to the server), then after deleting the extraction journal but keeping
the LLM cache (every prompt again: the cache answers), and once more with nothing changed (the journal
answers: no prompt at all). Prints one JSON object: calls, tokens in and out, per provision and in all,
seconds per provision, and each rerun's seconds as a ratio to the cold build.

    make llm
    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.llm_build_bench --url $(cat
    docker/llm-launcher/.runtime/url)

For a hosted model, its tokens per provision times the corpus's provisions (29 CFR 1926: see
`bifrost graph stats`) are what a build costs; output tokens depend on the model.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.unit.mini_corpus import built_mini_home  # the test suite's mini home, built offline

ROOT = Path(__file__).resolve().parents[1]


def build(home: Path, env: dict[str, str]) -> tuple[dict, float]:
    cmd = [
        sys.executable,
        "-m",
        "bifrost.app.cli.app",
        "--home",
        str(home),
        "build",
        "entities",
        "--corpus",
        "mini",
        "--extractor",
        "llm",
        "--json",
    ]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"the build failed: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout), seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8765/v1")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument(
        "--response-format", default="json_object", choices=("prompt", "json_object", "json_schema")
    )
    ap.add_argument("--max-tokens", default="384")
    args = ap.parse_args()
    env = {
        "BIFROST_LLM_MODEL": args.model,
        "OPENAI_BASE_URL": args.url,
        "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "local"),
        "BIFROST_LLM_RESPONSE_FORMAT": args.response_format,
        "BIFROST_LLM_MAX_TOKENS": args.max_tokens,
        "BIFROST_LLM_TEMPERATURE": "0",
        "BIFROST_LLM_CONCURRENCY": "1",
        "BIFROST_MAX_EXTRACTION_FAILURE_SHARE": "1.0",
    }
    with tempfile.TemporaryDirectory() as tmp:
        home = built_mini_home(Path(tmp))
        cold, cold_s = build(home, env)
        (home / "extraction_journal.db").unlink()
        cached, cached_s = build(home, env)
        again, again_s = build(home, env)
    usage = cold["usage"]["models"][0]
    n = cold["provisions_processed"]
    print(
        json.dumps(
            {
                "model": args.model,
                "response_format": args.response_format,
                "max_tokens": int(args.max_tokens),
                "provisions": n,
                "extracted": cold["extracted"],
                "failed": len(cold["failed"]),
                "entities": cold["entities"],
                "calls": usage["calls"],
                "input_tokens": usage["input_tokens"],
                "output_tokens": usage["output_tokens"],
                "input_tokens_per_provision": round(usage["input_tokens"] / n),
                "output_tokens_per_provision": round(usage["output_tokens"] / n),
                "seconds_cold": round(cold_s, 1),
                "seconds_per_provision_cold": round(cold_s / n, 2),
                "rerun_llm_cache": {
                    "seconds": round(cached_s, 1),
                    "ratio_to_cold": round(cached_s / cold_s, 3),
                    "cached_calls": cached["usage"]["models"][0]["cached_calls"]
                    if cached["usage"]["models"]
                    else 0,
                },
                "rerun_journal": {
                    "seconds": round(again_s, 1),
                    "ratio_to_cold": round(again_s / cold_s, 3),
                    "from_journal": again["from_journal"],
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
