"""The environment that runs a code tree of this project in a subprocess, every package from that tree.

`PYTHONPATH=<tree>` alone gives the tree's `bifrost/` but not its top-level `retrieval/`, `graph_builders/`,
`eval/` and `prompts/`: the installed package maps those (setuptools `package-dir`) to the checkout it was
installed from, so a "before" tree would run the current answer code. A `sitecustomize` placed first on
the path maps them to the tree's own folders before the installed finder is asked.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

TOP_LEVEL = {
    "bifrost.retrieval": "retrieval",
    "bifrost.graph_builders": "graph_builders",
    "bifrost.eval": "eval",
    "bifrost.training": "training",
    "bifrost.prompts": "prompts",
}

SHIM = '''import importlib.util, os, sys

_ROOT, _TOP = {root!r}, {top!r}


class _TreeFinder:
    """bifrost.retrieval and its siblings from the tree on PYTHONPATH (see benchmarks/code_tree.py)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        folder = _TOP.get(name)
        if folder is None:
            return None
        where = os.path.join(_ROOT, folder)
        return importlib.util.spec_from_file_location(name, os.path.join(where, "__init__.py"),
                                                      submodule_search_locations=[where])


sys.meta_path.insert(0, _TreeFinder())
'''


def tree_env(code: Path) -> dict[str, str]:
    """os.environ, offline, with ``code``'s packages (all of them) first on the path."""
    root = str(code.resolve())
    shim = Path(tempfile.mkdtemp(prefix="bifrost-tree-"))
    (shim / "sitecustomize.py").write_text(SHIM.format(root=root, top=TOP_LEVEL))
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(shim), root]),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
