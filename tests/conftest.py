"""Shared fixtures: where the shared data is, and an isolated Bifrost home per test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def find_shared_dir() -> Path | None:
    env = os.environ.get("BIFROST_SHARED_DIR")
    for cand in ([Path(env)] if env else []) + [ROOT.parent / "shared"]:
        if (cand / "corpora").is_dir():
            return cand
    return None


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared data folder; in CI its absence is a failure, elsewhere a skip."""
    d = find_shared_dir()
    if d is None:
        if os.environ.get("CI") == "true":
            pytest.fail("shared data folder not found (set BIFROST_SHARED_DIR or put it at ../shared)")
        pytest.skip("shared data folder not found (set BIFROST_SHARED_DIR)")
    return d


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty BIFROST_HOME for one test."""
    h = tmp_path / "home"
    h.mkdir()
    return h
