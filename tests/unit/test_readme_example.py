"""The README's Python example runs for real (in a subprocess, against a small home) and answers with
citations.

The snippet is taken from the README's ```python block as written; only the corpus and the question are
swapped for the mini fixture part (21 provisions of Subpart M), so the test stays fast and offline. Each
swap must find the text it replaces: when the README snippet changes shape, this test fails and is updated
with it, instead of silently running something else.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURES, ROOT

README = ROOT / "README.md"
MINI = FIXTURES / "mini" / "part-mini.json"
_PYTHON_BLOCK = re.compile(r"^```python\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)

README_BUILD = 'bf.build("osha-1926")'
README_QUESTION = (
    '"Can a combination of a warning line system and personal fall arrest system be used for all types of '
    'leading-edge work?"'
)
MINI_QUESTION = '"How must an employee constructing a leading edge be protected?", corpus="mini"'


def readme_snippet() -> str:
    """The README's one ```python block."""
    blocks = [m["body"] for m in _PYTHON_BLOCK.finditer(README.read_text(encoding="utf-8"))]
    assert len(blocks) == 1, f"README.md should have exactly one ```python block, found {len(blocks)}"
    return blocks[0]


def on_the_mini_corpus(snippet: str) -> str:
    """The snippet with the mini part as its corpus and a question that part answers."""
    assert snippet.count(README_BUILD) == 1, f"the README snippet no longer calls {README_BUILD}"
    assert snippet.count(README_QUESTION) == 1, "the README snippet no longer asks the leading-edge question"
    code = snippet.replace(README_BUILD, f'bf.build("mini", [Path({str(MINI)!r})])')
    code = code.replace(README_QUESTION, MINI_QUESTION)
    assert '"osha-1926"' not in code
    return "from pathlib import Path\n" + code


def test_the_readme_snippet_is_the_five_line_example() -> None:
    lines = readme_snippet().strip().splitlines()
    assert len(lines) == 5
    assert lines[0] == "from bifrost import Bifrost"
    assert lines[2] == "with Bifrost() as bf:"


def test_the_readme_python_example_answers_with_citations(tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(on_the_mini_corpus(readme_snippet()), encoding="utf-8")
    # no outer home, store or model
    env = {k: v for k, v in os.environ.items() if not k.startswith("BIFROST_")}
    env.update(BIFROST_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    run = subprocess.run(
        [sys.executable, str(script)],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"the README example failed:\n{run.stderr[-3000:]}"
    assert "[1926.50" in run.stdout, f"no citation mark in the answer:\n{run.stdout}"
