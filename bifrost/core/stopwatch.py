"""Seconds between named laps: how `ask` reports what a question waited for, stage by stage."""

from __future__ import annotations

import time


class Stopwatch:
    """Seconds between laps, by name."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + now - self._last
        self._last = now
