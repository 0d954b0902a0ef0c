"""The refusal rule, in one place: refuse when nothing was retrieved or when the question's best
similarity with any provision is below the configured threshold."""

from __future__ import annotations

from typing import Protocol


class _Scored(Protocol):
    items: list
    relevance: float


def should_refuse(result: _Scored, refuse_below: float) -> bool:
    """True when ``result`` holds nothing or its relevance is under ``refuse_below``."""
    return not result.items or result.relevance < refuse_below
