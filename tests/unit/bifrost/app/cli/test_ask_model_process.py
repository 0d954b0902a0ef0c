"""`bifrost ask` from the command line parses and encodes in a child process that loaded the models while the
parent loaded the indexes: the parent never imports torch, and the answer is the same as with
everything in one process (``BIFROST_MODEL_PROCESS=false``). Each run gets its own copy of the
home, so that neither reads the question's parse from the extraction journal the other wrote."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import subprocess_env
from tests.unit.mini_corpus import QUESTIONS, built_mini_home

PROBE = """
import io, json, runpy, sys
from contextlib import redirect_stdout
sys.argv = ["bifrost", "--home", sys.argv[1], "ask", "--corpus", "mini", sys.argv[2], "--json"]
buf = io.StringIO()
try:
    with redirect_stdout(buf):
        runpy.run_module("bifrost.app.cli.app", run_name="__main__")
except SystemExit as e:
    assert e.code in (0, None), e.code
answer = json.loads(buf.getvalue())
answer.pop("timings")
print(json.dumps({"answer": answer, "torch": "torch" in sys.modules}))
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return built_mini_home(tmp_path_factory.mktemp("model-process"))


def ask(home: Path, question: str, child: bool) -> dict:
    env = {**subprocess_env(), "BIFROST_MODEL_PROCESS": "true" if child else "false"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(home), question], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == ""
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("question", QUESTIONS[:3])
def test_the_answer_is_the_same_and_the_parent_never_imports_torch(home, question, tmp_path):
    homes = [shutil.copytree(home, tmp_path / name) for name in ("child", "one-process")]
    in_child, in_process = ask(homes[0], question, child=True), ask(homes[1], question, child=False)
    assert in_child["answer"] == in_process["answer"]
    assert in_child["answer"]["retrieved"]
    assert in_child["torch"] is False and in_process["torch"] is True
