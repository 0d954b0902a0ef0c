"""Extras: the core runs without the optional packages, and a feature whose extra is missing says
which extra to install in one line. Missing packages are simulated in a real subprocess by an
import hook that refuses them, so nothing in this process is patched."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bifrost.core.errors import MissingExtraError
from bifrost.core.extras import EXTRAS, has_module, require_extra

ROOT = Path(__file__).resolve().parents[4]

BLOCKER = textwrap.dedent(
    """
    import importlib.abc, os, sys
    BLOCKED = set(os.environ["BLOCK_MODULES"].split(","))
    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None
    sys.meta_path.insert(0, Refuse())
    """
)


def run_blocked(tmp_path: Path, blocked: list[str], code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter in which ``blocked`` top-level packages cannot be imported."""
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    env = {
        **os.environ,
        "BLOCK_MODULES": ",".join(blocked),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def test_require_extra_names_the_extra_to_install():
    with pytest.raises(MissingExtraError) as e:
        require_extra("web", "no_such_module_anywhere")
    assert "pip install 'bifrost-rag[web]'" in str(e.value) and "\n" not in str(e.value)


def test_every_extra_names_modules_that_are_installed_in_the_test_environment():
    assert all(has_module(m) for modules in EXTRAS.values() for m in modules)


def test_the_core_cli_and_offline_pipeline_import_without_any_extra(tmp_path):
    blocked = sorted(
        {m.split(".")[0] for mods in EXTRAS.values() for m in mods} | {"langchain", "langchain_community"}
    )
    code = (
        "import bifrost.app.cli.app, bifrost.app.facade, bifrost.retrieval.pipeline, "
        "bifrost.graph_builders.ingest, "
        "bifrost.graph_builders.entities.pipeline, bifrost.graph_builders.navigator.build; print('ok')"
    )
    r = run_blocked(tmp_path, blocked, code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_serve_without_the_web_extra_is_a_one_line_error_naming_it(tmp_path):
    code = (
        "from bifrost.app.cli.app import main; import sys; sys.argv=['bifrost','--home','"
        + str(tmp_path / "h")
        + "','serve']; main()"
    )
    r = run_blocked(tmp_path, ["fastapi", "uvicorn", "jinja2"], code)
    assert r.returncode == 1
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "bifrost-rag[web]" in lines[0], r.stderr


def test_a_chat_model_without_the_llm_extra_is_a_one_line_error_naming_it(tmp_path):
    code = (
        "from bifrost.core.resources import Resources; from bifrost.core.settings import Settings\n"
        "from bifrost.core.errors import MissingExtraError\n"
        "try:\n    Resources(Settings(home='"
        + str(tmp_path / "h")
        + "', llm_model='gpt-4o-mini')).chat_model\n"
        "except MissingExtraError as e:\n    print(e)\n"
    )
    r = run_blocked(tmp_path, ["langchain_core", "langchain_openai", "openai"], code)
    assert "bifrost-rag[llm]" in r.stdout, r.stderr[-2000:]
