"""Shared fixtures: where the shared data is, and an isolated Bifrost home per test."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

try:  # property-based tests: a modest, deadline-free budget (2 shared cores); CI derandomizes for stable runs
    from hypothesis import HealthCheck, settings as hypothesis_settings

    hypothesis_settings.register_profile("dev", max_examples=100, deadline=None)
    hypothesis_settings.register_profile(
        "thorough", max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck)
    )
    hypothesis_settings.register_profile(
        "ci",
        max_examples=200,
        deadline=None,
        derandomize=True,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    hypothesis_settings.load_profile(
        os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") == "true" else "dev")
    )
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass


def subprocess_env() -> dict[str, str]:
    """The environment of a subprocess under test: this checkout first on the path, offline models."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def skip_or_fail(reason: str) -> NoReturn:
    """A missing service, file or package: a visible skip on a developer machine, a failure under
    ``CI=true`` (CI never passes by skipping). Usable in a test, a fixture or at module level."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason, allow_module_level=True)


def import_or_skip(name: str, extra: str) -> ModuleType:
    """``pytest.importorskip`` under the CI guard: the module, else `skip_or_fail` naming the extra."""
    try:
        return importlib.import_module(name)
    except ImportError:
        skip_or_fail(f"{name} is not installed: pip install 'bifrost-rag[{extra}]'")


def find_shared_dir() -> Path | None:
    """The shared data folder (``$BIFROST_SHARED_DIR``, else ``../shared``), None when absent; the one
    place tests locate it (tests use the `shared_dir` fixture)."""
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
        skip_or_fail("shared data folder not found (set BIFROST_SHARED_DIR or put it at ../shared)")
    return d


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty BIFROST_HOME for one test."""
    h = tmp_path / "home"
    h.mkdir()
    return h


def copy_home(src: Path, dst: Path) -> None:
    """Copy a BIFROST_HOME: the SQLite database through the backup API, the indexes, and the ONNX export of
    the embedding model, without which the copy encodes on torch: the whole corpus again (minutes)."""
    import shutil
    import sqlite3

    dst.mkdir(parents=True, exist_ok=True)
    a, b = sqlite3.connect(src / "bifrost.db"), sqlite3.connect(dst / "bifrost.db")
    with b:
        a.backup(b)
    a.close()
    b.close()
    for folder in ("index", "models/onnx"):
        if (src / folder).exists():
            shutil.copytree(src / folder, dst / folder, dirs_exist_ok=True)


def copy_home_with_models(src: Path, dst: Path) -> None:
    """`copy_home`, and the model files at the top of ``models/`` (the ranker and answerability models)."""
    copy_home(src, dst)
    (dst / "models").mkdir(exist_ok=True)
    for model in (src / "models").iterdir():
        if model.is_file():
            (dst / "models" / model.name).write_bytes(model.read_bytes())


@pytest.fixture(scope="session")
def osha_home(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A BIFROST_HOME with 29 CFR 1926 ingested, both graphs built (offline extractor) and OSHA's letters of
    interpretation imported as precedents (`tests.osha_home`).

    `scripts/run-tests.sh` builds it before pytest and passes it as BIFROST_TEST_OSHA_HOME (also the way to
    reuse a home built earlier); otherwise it is built here, once per test session (many minutes).
    """
    from tests.osha_home import build_osha_home

    prebuilt = os.environ.get("BIFROST_TEST_OSHA_HOME")
    if prebuilt and (Path(prebuilt) / "bifrost.db").exists():
        return Path(prebuilt)
    return build_osha_home(tmp_path_factory.mktemp("osha-home"), shared_dir)


RANKER_SETS = ("osha-near-domain.jsonl", "osha-natural-train.jsonl", "osha-natural-dev.jsonl")
"""The project's question sets the ranker learns from (beside the shared dev letters), as in `make demo`."""


@pytest.fixture(scope="session")
def osha_ranker_candidates(osha_home: Path, shared_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """The ranking groups of every question set `make demo` trains the ranker on, collected once over a
    copy of `osha_home` (as `bifrost train ranker` collects them), and that copy's settings."""
    from bifrost.core.settings import Settings
    from bifrost.training.ranker.collect_sets import collect_sets

    home = tmp_path_factory.mktemp("osha-ranker-candidates")
    copy_home(osha_home, home)
    settings = Settings(home=home, shared_dir=shared_dir)
    sets = [
        shared_dir / "eval" / "osha-loi-dev.jsonl",
        *(ROOT / "eval" / "questions" / name for name in RANKER_SETS),
    ]
    return settings, collect_sets(settings, "osha-1926", sets, [], [], 5, False, True, lambda _m: None, None)


def ranker_home_at_seed(osha_ranker_candidates, seed: int, home: Path) -> Path:
    """A copy of the candidates' home with the ranker fit on every collected group at LightGBM ``seed`` (no
    validation: the tests check behaviour; the figures come from `bifrost train ranker`)."""
    from bifrost.core.settings import Settings
    from bifrost.training.ranker.dataset import describe_pool
    from bifrost.training.ranker.report import TrainReport
    from bifrost.training.ranker.train import store_collected

    settings, data = osha_ranker_candidates
    copy_home(settings.home, home)
    at = Settings(home=home, shared_dir=settings.shared_dir)
    store_collected(
        at,
        "osha-1926",
        data,
        TrainReport("osha-1926", 0, describe_pool(data.groups), {}, seed=seed, seeds=[seed]),
        seed,
    )
    return home


@pytest.fixture(scope="session")
def osha_ranker_home(osha_ranker_candidates, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of `osha_home` with the learned ranker fit, at seed 0, on every question set `make demo`
    trains it on."""
    return ranker_home_at_seed(osha_ranker_candidates, 0, tmp_path_factory.mktemp("osha-ranker-home"))


@pytest.fixture(scope="session")
def neo4j_uri() -> str:
    """The Bolt URI of the real test Neo4j (skip locally, fail in CI when missing)."""
    from tests.integration.neo4j_env import neo4j_uri as uri

    return uri()


@pytest.fixture(scope="session")
def osha_in_neo4j(osha_home: Path, neo4j_uri: str) -> Path:
    """The session's OSHA build exported to the test Neo4j (both graphs), once."""
    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings

    bf = Bifrost(Settings(home=osha_home, store="neo4j", neo4j_uri=neo4j_uri))
    try:
        bf.export_neo4j("osha-1926")
    finally:
        bf.close()
    return osha_home
