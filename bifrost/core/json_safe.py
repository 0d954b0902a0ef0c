"""Strict JSON: NaN and infinities (which JSON lacks, and metrics hold for empty groups) become null."""

from __future__ import annotations

import math
from typing import Any


def sanitize(o: Any) -> Any:
    """The document with NaN/inf replaced by None, so that it serializes as strict JSON."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {str(k): sanitize(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [sanitize(v) for v in o]
    return o
