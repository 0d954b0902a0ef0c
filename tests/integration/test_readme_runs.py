"""The README's command lines run: each `bifrost ...` line of its bash blocks, in its plain form (optional
`[...]` parts dropped), against a copy of the OSHA home, from the repository folder (so `../shared` and
`eval/questions` resolve as they do for a user). A line marked `# needs ...` (a server, Neo4j, a second
edition) or `# long: ...` is only parse-checked (tests/unit/test_readme_commands.py). The home is a copy
of the OSHA home with its ranker, as `make demo` leaves it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, copy_home_with_models
from tests.unit.test_readme_commands import README, readme_command_lines

MARKED = re.compile(r"#\s*(?:needs|long)\b")
LINES = [line for line in readme_command_lines(README.read_text(encoding="utf-8")) if not MARKED.search(line)]
BIFROST = Path(sys.executable).with_name("bifrost")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def plain_args(line: str) -> list[str]:
    """The arguments after `bifrost`, optional brackets dropped, a README `--home` replaced by the test's."""
    args = shlex.split(re.sub(r"\[[^\]]*\]", " ", line), comments=True)[1:]
    if "--home" in args:
        at = args.index("--home")
        del args[at : at + 2]
    return args


@pytest.fixture(scope="module")
def readme_home(osha_ranker_home, tmp_path_factory) -> Path:
    """A copy of the OSHA home with its ranker (as `make demo` leaves it: the README's eval line scores
    it)."""
    home = tmp_path_factory.mktemp("readme-home")
    copy_home_with_models(osha_ranker_home, home)
    return home


def test_most_readme_lines_run_and_the_others_are_marked():
    assert len(LINES) >= 6
    every = readme_command_lines(README.read_text(encoding="utf-8"))
    assert all(line in LINES or MARKED.search(line) for line in every)


@pytest.mark.parametrize("line", LINES, ids=LINES)
def test_a_readme_line_runs(readme_home, line, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "BIFROST_HOME": str(readme_home)}
    # outputs in the test's folder
    args = [a if not a.startswith("runs/") else str(tmp_path / a) for a in plain_args(line)]
    done = subprocess.run(
        [str(BIFROST), "--home", str(readme_home), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1100,
        check=False,
    )
    assert done.returncode == 0, f"{line}\n{done.stderr[-2000:]}"
