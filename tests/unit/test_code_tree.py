"""benchmarks/code_tree.py: a tree run by the benchmarks imports all of its packages from that tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks import code_tree

ROOT = Path(__file__).resolve().parents[1].parent


def test_the_top_level_folders_come_from_the_tree_not_from_the_installed_checkout(tmp_path):
    for folder in ("bifrost", *code_tree.TOP_LEVEL.values()):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text(f"WHERE = {folder!r}\n")
    (tmp_path / "retrieval" / "answer.py").write_text("TREE = True\n")
    probe = (
        "import bifrost, bifrost.retrieval, bifrost.retrieval.answer as a, bifrost.eval, bifrost.prompts;"
        "print(bifrost.__file__, bifrost.retrieval.__file__, a.TREE, bifrost.eval.WHERE, "
        "bifrost.prompts.WHERE)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=code_tree.tree_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    here, retrieval, tree, eval_, prompts = done.stdout.split()
    assert Path(here).parent == tmp_path / "bifrost" and Path(retrieval).parent == tmp_path / "retrieval"
    assert (tree, eval_, prompts) == ("True", "eval", "prompts")
