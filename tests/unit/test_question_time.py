"""Question time loads no training code: answering through the facade (what the CLI, web app and MCP server
call) imports nothing of `bifrost.training`, which holds the torch training loops and the cross-validation."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import subprocess_env
from tests.unit.mini_corpus import built_mini_home

PROBE = """
import sys
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
bf = Bifrost(Settings(home=sys.argv[1]))
answer = bf.ask("Who must prepare the fall protection plan?", corpus="mini")
assert answer.citations, answer
bf.search("guardrail height", corpus="mini", k=3)
loaded = sorted(m for m in sys.modules if m.startswith("bifrost.training"))
print("training modules:", loaded)
sys.exit(1 if loaded else 0)
"""


def test_an_ask_imports_no_training_module(tmp_path):
    home = built_mini_home(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home)],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "training modules: []" in done.stdout
