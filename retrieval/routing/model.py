"""The stored corpus router: one logistic model over `features.COLUMNS`, the same for every corpus (it reads
no corpus's name, so a corpus added later is scored alike). Kept as ``models/router.json`` in the home
(`bifrost train router`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from bifrost.core.atomic_files import write_json
from bifrost.core.settings import Settings
from bifrost.retrieval.routing.features import COLUMNS

log = logging.getLogger(__name__)

ASK_ALSO = 0.5
"""A corpus beside the likeliest is asked too when the router finds it more likely than not to hold the rule
(a calibrated probability's own midpoint; nothing tuned)."""


class RouterModel(BaseModel):
    """Weights over `COLUMNS`, and what they were fitted and validated on."""

    columns: tuple[str, ...] = COLUMNS
    weights: list[float]
    intercept: float
    embedding_model: str
    trained: dict[str, Any] = Field(default_factory=dict, description="What it was fitted and validated on")

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """P(the corpus holds the rule) for rows of `COLUMNS` (any leading shape)."""
        z = np.asarray(rows, np.float64) @ np.asarray(self.weights) + self.intercept
        return 1.0 / (1.0 + np.exp(-z))


def router_path(settings: Settings) -> Path:
    return settings.home / "models" / "router.json"


def save_router(settings: Settings, model: RouterModel) -> Path:
    path = router_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, model.model_dump(mode="json"))
    return path


def load_router(settings: Settings) -> RouterModel | None:
    """The home's router, or None when none is stored, it cannot be read, or it reads another embedding
    model's cosines or other columns (one warning line: every corpus named is asked)."""
    path = router_path(settings)
    if not path.is_file():
        return None
    try:
        model = RouterModel(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError) as e:
        log.warning(
            "the corpus router %s is unreadable (%s); every corpus is asked", path.name, type(e).__name__
        )
        return None
    if model.embedding_model != settings.embedding_model or tuple(model.columns) != COLUMNS:
        log.warning(
            "the corpus router was trained for another embedding model or columns; every corpus is asked "
            "until `bifrost train router`"
        )
        return None
    return model
