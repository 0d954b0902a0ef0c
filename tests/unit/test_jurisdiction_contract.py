"""The import contract that keeps packs closed covers every module outside them: a new folder under
`graph_builders/` (or a new floor) cannot reach into a jurisdiction pack unnoticed."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKS = "bifrost.graph_builders.jurisdictions"


def contract() -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return next(
        c for c in config["tool"]["importlinter"]["contracts"] if "jurisdiction pack reaches" in c["name"]
    )


def outside_the_packs() -> set[str]:
    names = {
        f"bifrost.{p.name}"
        for p in (ROOT / "bifrost").iterdir()
        if p.is_dir() and (p / "__init__.py").exists()
    }
    names |= {"bifrost.retrieval", "bifrost.eval", "bifrost.training"}
    for p in (ROOT / "graph_builders").iterdir():
        if p.name in ("__init__.py", "jurisdictions", "__pycache__"):
            continue
        if p.is_dir() or p.suffix == ".py":
            names.add(f"bifrost.graph_builders.{p.stem}")
    names |= {
        f"{PACKS}.{p.stem}"
        for p in (ROOT / "graph_builders/jurisdictions").glob("*.py")
        if p.stem != "__init__"
    }
    return names


def test_the_contract_forbids_every_pack_folder():
    packs = {
        f"{PACKS}.{p.name}"
        for p in (ROOT / "graph_builders/jurisdictions").iterdir()
        if (p / "__init__.py").exists()
    }
    assert set(contract()["forbidden_modules"]) == packs


def test_every_module_outside_the_packs_is_a_source_of_the_contract():
    assert outside_the_packs() - set(contract()["source_modules"]) == set()
