"""Triple matching over distinct part vectors gives the cosines of the full `[h, r, t]` matrix."""

from __future__ import annotations

import numpy as np

from bifrost.retrieval.channels.triple_parts import TripleParts


def unit(rng, n: int, d: int = 8) -> np.ndarray:
    v = rng.normal(size=(n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def triple_matrix(rng, n: int = 40) -> np.ndarray:
    names, relations = unit(rng, 12), unit(rng, 4)  # few names: heads, relations and tails repeat
    h, r, t = rng.integers(0, 12, n), rng.integers(0, 4, n), rng.integers(0, 12, n)
    return np.hstack([names[h], relations[r], names[t]])


def test_each_distinct_vector_is_kept_once_and_the_matrix_is_rebuilt_exactly():
    m = triple_matrix(np.random.default_rng(3))
    parts = TripleParts.of(m)
    assert len(parts.vectors) <= 16 and parts.rows.shape == (40, 3)
    assert np.array_equal(parts.vectors[parts.rows].reshape(40, -1), m)


def test_cosines_equal_the_product_with_the_full_matrix():
    rng = np.random.default_rng(5)
    m = triple_matrix(rng)
    queries = np.hstack([unit(rng, 3), unit(rng, 3), unit(rng, 3)])
    got = TripleParts.of(m).cosines(queries)
    assert got.shape == (3, 40)
    assert np.allclose(got, queries @ m.T / 3.0, atol=1e-6)


def test_no_triples_or_no_queries_give_empty_cosines():
    empty = TripleParts.of(np.zeros((0, 24), dtype=np.float32))
    assert empty.cosines(np.ones((2, 24), dtype=np.float32)).shape == (2, 0)
    full = TripleParts.of(triple_matrix(np.random.default_rng(1)))
    assert full.cosines(np.zeros((0, 24), dtype=np.float32)).shape == (0, 40)
