"""The own-rulebook guide runs as written: its example HTML and PDF rulebooks ingest into one corpus, the
graph figures it quotes hold, and the first question gets the cited answer it shows
(docs/own-rulebook.md)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

GUIDE = ROOT / "docs" / "own-rulebook.md"
BIFROST = Path(sys.executable).with_name("bifrost")
pytestmark = pytest.mark.timeout(600)


def guide_lines() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.startswith("bifrost ")]


def run(line: str, home: Path) -> subprocess.CompletedProcess:
    args = shlex.split(line)[1:]
    at = args.index("--home")
    args[at + 1] = str(home)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    return subprocess.run(
        [str(BIFROST), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=550, check=False
    )


def test_the_guides_commands_ingest_both_rulebooks_and_answer_with_a_citation(tmp_path):
    ingest, stats, ask, entities = guide_lines()
    home = tmp_path / "acme-home"
    done = run(ingest, home)
    assert done.returncode == 0, done.stderr[-1500:]
    assert "21 sections" in done.stdout and "2 REFERS_TO" in done.stdout
    shown = run(stats + " --json", home)
    assert shown.returncode == 0 and '"section": 6' in shown.stdout and '"paragraph": 15' in shown.stdout
    answer = run(ask, home)
    assert answer.returncode == 0, answer.stderr[-1500:]
    assert "Spoil shall be kept at least 2 feet back from the edge of the trench. [3.1(c)]" in answer.stdout
    assert run(entities, home).returncode == 0


def test_a_file_the_readers_cannot_use_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "notes.html"
    bad.write_text("<html><body><p>No numbered sections here.</p></body></html>")
    done = run(f"bifrost --home HOME ingest {bad} --corpus acme", tmp_path / "home")
    lines = [line for line in done.stderr.splitlines() if "notes.html" in line]
    assert done.returncode != 0 and lines and all(len(line) < 300 for line in lines)
