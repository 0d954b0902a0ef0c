"""A circuit breaker for chat-model builds: after N consecutive connection failures, stop calling.

A server that is down fails every provision slowly (connect timeouts and retries); counting the
failures in a row and stopping early turns hundreds of failed extractions into one clear error.
Any reply from the server (valid or not) closes the count again.
"""

from __future__ import annotations

import threading

from bifrost.core.errors import ModelUnreachableError


class CircuitBreaker:
    """Thread-safe count of consecutive connection failures; ``limit`` 0 never opens."""

    def __init__(self, model: str, limit: int = 5) -> None:
        if limit < 0:
            raise ValueError(f"circuit breaker limit must be >= 0 (0: off), got {limit}")
        self.model = model
        self.limit = limit
        self._in_a_row = 0
        self._error: ModelUnreachableError | None = None
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        """True once ``limit`` connection failures came in a row; stays open."""
        return self._error is not None

    def connection_failed(self, exc: BaseException) -> None:
        """Count one connection failure; open at the limit."""
        with self._lock:
            self._in_a_row += 1
            if self.limit and self._in_a_row >= self.limit and self._error is None:
                last = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
                self._error = ModelUnreachableError(self.model, self._in_a_row, last)

    def reached(self) -> None:
        """The server answered: the count starts again."""
        with self._lock:
            self._in_a_row = 0

    def check(self) -> None:
        """Raise `ModelUnreachableError` when open."""
        if self._error is not None:
            raise ModelUnreachableError(self._error.model, self._error.failures, self._error.last)
