"""Nearest-entity search for the refiner: exact matrix products, or SimHash LSH for large networks.

The refiner asks one question of each new name: which existing entity is most similar, and is it
at or above ``tau``? Exact search answers it with a matrix product over every entity, so a build
costs O(names x entities). SimHash LSH (random hyperplanes, Charikar 2002) with banding only
compares a name with entities sharing a band of signature bits, so the cost per name stays near
constant; each candidate's cosine is computed exactly, so LSH never merges below ``tau`` and can
only miss a merge. Bands are sized from ``tau``: a pair at exactly ``tau`` is missed with
probability at most ``max_miss`` (1e-3), closer pairs far less.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

SearchMode = Literal["exact", "lsh", "auto"]
SEARCH_MODES: tuple[str, ...] = ("exact", "lsh", "auto")
_BLOCK = 16_384  # entity rows per exact product block: bounds memory at queries x _BLOCK floats
_KEY_CHUNK = 4_096  # rows hashed at once
_PAIR_CHUNK = 65_536  # (query, candidate) pairs scored at once: bounds memory at chunk x d floats


@dataclass(frozen=True)
class BandPlan:
    """SimHash banding: ``bands`` tables keyed by ``bits`` signature bits each."""

    bits: int
    bands: int

    def miss_probability(self, cosine: float) -> float:
        """Chance that a pair at this cosine shares no band (so is never compared)."""
        p_same_bit = 1.0 - math.acos(max(-1.0, min(1.0, cosine))) / math.pi
        return (1.0 - p_same_bit**self.bits) ** self.bands

    def candidate_fraction(self, cosine: float) -> float:
        """Chance that a pair at this cosine shares a band (so is compared)."""
        return 1.0 - self.miss_probability(cosine)


def plan_bands(tau: float, max_miss: float = 1e-3, max_bands: int = 64, max_bits: int = 30) -> BandPlan:
    """The most selective banding (most bits per band) that misses a pair at ``tau`` with
    probability at most ``max_miss`` using at most ``max_bands`` tables."""
    if not 0.0 < tau < 1.0:
        raise ValueError(f"LSH needs tau in (0, 1), got {tau}")
    p_same_bit = 1.0 - math.acos(tau) / math.pi
    for bits in range(max_bits, 0, -1):
        p_band = p_same_bit**bits
        bands = math.ceil(math.log(max_miss) / math.log1p(-p_band)) if p_band < 1.0 else 1
        if bands <= max_bands:
            return BandPlan(bits, bands)
    return BandPlan(1, max_bands)


def lsh_pays_off(plan: BandPlan, unrelated_cosine: float = 0.5, max_fraction: float = 0.05) -> bool:
    """Whether LSH prunes enough: pairs at ``unrelated_cosine`` (typical of related but distinct
    names) are compared at most ``max_fraction`` of the time. False for low tau (e.g. 0.9)."""
    return plan.candidate_fraction(unrelated_cosine) <= max_fraction


class SimHashTables:
    """Banded SimHash signatures of rows 0..n-1, as sorted runs merged like a log-structured
    merge tree, so adding and looking up batches stays vectorized (no Python loop per row)."""

    def __init__(self, dim: int, plan: BandPlan, seed: int = 0) -> None:
        if not 1 <= plan.bits <= 30:
            raise ValueError(f"SimHash bands hold 1 to 30 bits, got {plan.bits}")
        self.plan = plan
        self._planes = (
            np.random.default_rng(seed).standard_normal((dim, plan.bits * plan.bands)).astype(np.float32)
        )
        self._weights = np.int32(1) << np.arange(plan.bits, dtype=np.int32)  # bits <= 30 fit int32
        self._offsets = np.arange(plan.bands, dtype=np.int64) << plan.bits  # band b's keys never meet band b'
        self._runs: list[tuple[np.ndarray, np.ndarray]] = []  # (sorted keys, rows), sizes decreasing
        self._rows = 0

    def __len__(self) -> int:
        return self._rows

    def keys(self, vectors: np.ndarray) -> np.ndarray:
        """(n, bands) int64 keys: each band's sign bits packed, offset by band."""
        out = np.empty((len(vectors), self.plan.bands), dtype=np.int64)
        for start in range(0, len(vectors), _KEY_CHUNK):  # bounds the (rows, bands, bits) temporaries
            chunk = vectors[start : start + _KEY_CHUNK]
            bits = (chunk @ self._planes > 0).reshape(len(chunk), self.plan.bands, self.plan.bits)
            out[start : start + len(chunk)] = (bits.astype(np.int32) @ self._weights) + self._offsets
        return out

    def add(self, vectors: np.ndarray) -> None:
        """Index ``vectors`` as the next rows."""
        if not len(vectors):
            return
        keys = self.keys(vectors).ravel()
        rows = np.repeat(np.arange(self._rows, self._rows + len(vectors), dtype=np.int64), self.plan.bands)
        order = np.argsort(keys, kind="stable")
        self._runs.append((keys[order], rows[order]))
        self._rows += len(vectors)
        while len(self._runs) > 1 and len(self._runs[-1][0]) * 2 >= len(self._runs[-2][0]):
            (k2, r2), (k1, r1) = self._runs.pop(), self._runs.pop()
            k, r = np.concatenate([k1, k2]), np.concatenate([r1, r2])
            order = np.argsort(k, kind="stable")
            self._runs.append((k[order], r[order]))

    def candidates(self, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distinct (query, row) pairs sharing at least one band, sorted by query then row."""
        keys = self.keys(vectors).ravel()
        query = np.repeat(np.arange(len(vectors), dtype=np.int64), self.plan.bands)
        order = np.argsort(keys)  # sorted needles make each binary search start where the last ended
        keys, query = keys[order], query[order]
        qs, rs = [], []
        for run_keys, run_rows in self._runs:
            lo = np.searchsorted(run_keys, keys, side="left")
            counts = np.searchsorted(run_keys, keys, side="right") - lo
            total = int(counts.sum())
            if not total:
                continue
            # run position of each pair's first match
            starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
            qs.append(np.repeat(query, counts))
            rs.append(run_rows[starts + np.arange(total)])
        if not qs:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        pairs = np.unique(np.concatenate(qs) * (self._rows + 1) + np.concatenate(rs))
        return pairs // (self._rows + 1), pairs % (self._rows + 1)


class EntitySearch:
    """The entity vectors so far and a best-match search over them.

    ``mode``: "exact" compares with every entity; "lsh" uses SimHash candidates from the start;
    "auto" is exact until ``switch_at`` entities (exact costs ~3 s in all up to 20,000), then LSH
    if it pays off at this ``tau``.
    """

    def __init__(
        self,
        tau: float,
        mode: SearchMode = "auto",
        switch_at: int = 20_000,
        initial_capacity: int = 1024,
        seed: int = 0,
    ) -> None:
        if mode not in SEARCH_MODES:
            raise ValueError(f"search mode must be one of {', '.join(SEARCH_MODES)}, got {mode!r}")
        self.tau = tau
        self.mode = mode
        self.switch_at = switch_at
        self.seed = seed
        self._capacity = max(1, initial_capacity)
        self._matrix: np.ndarray | None = None
        self._n = 0
        self._tables: SimHashTables | None = None
        self._plan = plan_bands(tau) if 0.0 < tau < 1.0 else None
        if mode == "lsh" and self._plan is None:
            raise ValueError(f"LSH search needs tau in (0, 1), got {tau}")

    def __len__(self) -> int:
        return self._n

    @property
    def uses_lsh(self) -> bool:
        """Whether searches now go through SimHash candidates."""
        return self._tables is not None

    def matrix(self) -> np.ndarray:
        """The (n, d) entity vectors (a view; row i is entity i)."""
        if self._matrix is None:
            return np.zeros((0, 0), dtype=np.float32)
        return self._matrix[: self._n]

    def append(self, vector: np.ndarray) -> int:
        """Store one unit vector as the next entity; returns its row."""
        row = self._n
        if self._matrix is None:
            self._matrix = np.zeros((self._capacity, vector.shape[0]), dtype=np.float32)
        elif row == self._matrix.shape[0]:
            grown = np.zeros((2 * row, self._matrix.shape[1]), dtype=np.float32)
            grown[:row] = self._matrix
            self._matrix = grown
        self._matrix[row] = vector
        self._n += 1
        return row

    def index_new_rows(self) -> None:
        """Bring the LSH tables up to date with appended rows (switching to LSH when due)."""
        if self._tables is None and self._should_switch():
            assert self._plan is not None and self._matrix is not None
            self._tables = SimHashTables(self._matrix.shape[1], self._plan, self.seed)
        if self._tables is not None and len(self._tables) < self._n:
            self._tables.add(self.matrix()[len(self._tables) :])

    def _should_switch(self) -> bool:
        if self._plan is None or not self._n:
            return False
        if self.mode == "lsh":
            return True
        return self.mode == "auto" and self._n >= self.switch_at and lsh_pays_off(self._plan)

    def best(self, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per query: the highest cosine with an indexed entity (-inf if none) and its row (lowest
        row on ties). Call `index_new_rows` after appending for LSH to see the new rows."""
        best = np.full(len(vectors), -np.inf, dtype=np.float32)
        arg = np.zeros(len(vectors), dtype=np.int64)
        if not self._n or not len(vectors):
            return best, arg
        if self._tables is not None:
            self._best_lsh(vectors, best, arg)
        else:
            self._best_exact(vectors, best, arg)
        return best, arg

    def _best_exact(self, vectors: np.ndarray, best: np.ndarray, arg: np.ndarray) -> None:
        m = self.matrix()
        for start in range(0, self._n, _BLOCK):
            sims = vectors @ m[start : start + _BLOCK].T
            a = np.argmax(sims, axis=1)
            top = sims[np.arange(len(vectors)), a]
            better = top > best
            best[better] = top[better]
            arg[better] = a[better] + start

    def _best_lsh(self, vectors: np.ndarray, best: np.ndarray, arg: np.ndarray) -> None:
        assert self._tables is not None
        queries, rows = self._tables.candidates(vectors)
        m = self.matrix()
        for start in range(0, len(queries), _PAIR_CHUNK):
            q, r = queries[start : start + _PAIR_CHUNK], rows[start : start + _PAIR_CHUNK]
            sims = np.einsum("ij,ij->i", vectors[q], m[r])
            order = np.lexsort((r, -sims, q))  # per query: highest cosine first, then lowest row
            q, r, sims = q[order], r[order], sims[order]
            first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
            better = sims[first] > best[q[first]]
            best[q[first][better]] = sims[first][better]
            arg[q[first][better]] = r[first][better]
