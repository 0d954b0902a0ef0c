"""`bifrost ask` from the command line parses and encodes in a child process that loaded the models while the
parent loaded the indexes, and the answer is the same as with everything in one process
(``BIFROST_MODEL_PROCESS=false``); neither imports torch (the encoder runs on onnxruntime, and spaCy is loaded
with torch hidden from thinc). Each run gets its own copy of the
home, so that neither reads the question's parse from the extraction journal the other wrote."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import subprocess_env
from tests.unit.mini_corpus import QUESTIONS, built_mini_home

PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from bifrost.app.cli.app import app
buf = io.StringIO()
with redirect_stdout(buf):  # the app, not the entry point: that would end the process after answering
    app(["--home", sys.argv[1], "ask", "--corpus", "mini", sys.argv[2], "--json"], standalone_mode=False)
answer = json.loads(buf.getvalue())
answer.pop("timings"); answer.pop("record_id")  # each run is its own record
print(json.dumps({"answer": answer, "torch": "torch" in sys.modules}))
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return built_mini_home(tmp_path_factory.mktemp("model-process"))


def ask(home: Path, question: str, child: bool) -> dict:
    env = {**subprocess_env(), "BIFROST_MODEL_PROCESS": "true" if child else "false"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home), question],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == ""
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("question", QUESTIONS[:3])
def test_the_answer_is_the_same_and_torch_is_never_imported(home, question, tmp_path):
    homes = [shutil.copytree(home, tmp_path / name) for name in ("child", "one-process")]
    in_child, in_process = ask(homes[0], question, child=True), ask(homes[1], question, child=False)
    assert in_child["answer"] == in_process["answer"]
    assert in_child["answer"]["retrieved"]
    assert in_child["torch"] is False and in_process["torch"] is False


def test_the_entry_point_prints_the_whole_answer_and_keeps_the_journal_before_its_quick_exit(home, tmp_path):
    home = shutil.copytree(home, tmp_path / "home")
    question = QUESTIONS[3]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bifrost.app.cli.app",
            "--home",
            str(home),
            "ask",
            "--corpus",
            "mini",
            question,
            "--json",
        ],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["question"] == question  # all of it: the output was flushed
    with sqlite3.connect(home / "extraction_journal.db") as db:  # the question's parse was journaled
        assert (
            db.execute(
                "SELECT count(*) FROM llm_extraction_journal WHERE corpus = 'mini' AND provision_id = "
                "'question'"
            ).fetchone()[0]
            == 1
        )
