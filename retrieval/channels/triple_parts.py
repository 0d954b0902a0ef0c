"""The `[h, r, t]` triple matrix as its distinct part vectors: a triple's cosine is the mean of its
head's, relation's and tail's cosines, so matching scores each distinct vector once (about 24k
on ADGM) instead of every 3 x 384 row (54k), and reads a third of the memory."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TripleParts:
    """Distinct part vectors (u, d) and, per triple, the rows of its head, relation and tail (n, 3)."""

    vectors: np.ndarray
    rows: np.ndarray

    @classmethod
    def of(cls, matrix: np.ndarray) -> TripleParts:
        """Split each (3d) row into its three unit vectors and keep each distinct vector once."""
        n, width = matrix.shape
        if n == 0:
            return cls(np.zeros((0, max(1, width // 3)), dtype=np.float32), np.zeros((0, 3), dtype=np.int32))
        blocks = np.ascontiguousarray(matrix, dtype=np.float32).reshape(n * 3, width // 3)
        first: dict[bytes, int] = {}
        rows = np.fromiter(
            (first.setdefault(b.tobytes(), len(first)) for b in blocks), dtype=np.int32, count=n * 3
        )
        keep = np.zeros(len(first), dtype=np.int64)
        keep[rows] = np.arange(n * 3)  # any occurrence: equal bytes, equal vector
        return cls(blocks[keep], rows.reshape(n, 3))

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self.rows.nbytes)

    def cosines(self, queries: np.ndarray) -> np.ndarray:
        """(m, n): the cosine of each query ``[h, r, t]`` (3 unit vectors concatenated) with each triple."""
        m = len(queries)
        if m == 0 or len(self.rows) == 0:
            return np.zeros((m, len(self.rows)), dtype=np.float32)
        q = np.asarray(queries, dtype=np.float32).reshape(m * 3, -1)
        by_query = (q @ self.vectors.T).reshape(m, 3, -1)  # [query, part, distinct vector]
        h, r, t = self.rows[:, 0], self.rows[:, 1], self.rows[:, 2]
        return np.stack([(q[0][h] + q[1][r] + q[2][t]) / 3.0 for q in by_query])
