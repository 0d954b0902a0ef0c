"""`bifrost --help` (and building the command tree) imports nothing heavy: models, indexes and
stores load only when a command needs them."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import subprocess_env

HEAVY = (
    "torch",
    "transformers",
    "sentence_transformers",
    "spacy",
    "bm25s",
    "lightgbm",
    "sqlalchemy",
    "networkx",
    "numpy",
    "bifrost.app.facade",
    "bifrost.retrieval.pipeline",
)

PROBE = f"""
import runpy, sys
sys.argv = ["bifrost", "--help"]
try:
    runpy.run_module("bifrost.app.cli.app", run_name="__main__")
except SystemExit as e:
    assert e.code in (0, None), e.code
print("IMPORTED=" + ",".join(m for m in {HEAVY!r} if m in sys.modules))
"""


def test_help_imports_no_model_index_or_store_library():
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=subprocess_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "IMPORTED="
