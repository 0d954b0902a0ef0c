"""Entity search: SimHash LSH finds the same best matches as exact search above tau, in near-constant work."""

import math

import numpy as np
import pytest

from bifrost.graph_builders.entities.neighbours import (
    BandPlan,
    EntitySearch,
    SimHashTables,
    lsh_pays_off,
    plan_bands,
)

DIM = 64


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def near_copies(base: np.ndarray, cos: float, rng: np.random.Generator) -> np.ndarray:
    """Unit vectors at exactly cosine ``cos`` from each row of unit ``base``."""
    r = rng.standard_normal(base.shape)
    r -= (r * base).sum(1, keepdims=True) * base
    r = unit(r)
    return unit(cos * base + math.sqrt(1 - cos**2) * r)


@pytest.mark.parametrize("tau", [0.8, 0.9, 0.95, 0.99])
def test_band_plan_misses_a_pair_at_tau_at_most_one_time_in_a_thousand(tau):
    plan = plan_bands(tau)
    assert plan.bands <= 64
    assert plan.miss_probability(tau) <= 1e-3
    assert plan.miss_probability(min(1.0, tau + 0.02)) < plan.miss_probability(tau)


def test_band_plan_is_more_selective_for_higher_tau():
    assert plan_bands(0.99).bits > plan_bands(0.95).bits > plan_bands(0.9).bits


def test_lsh_pays_off_only_for_high_tau():
    assert lsh_pays_off(plan_bands(0.95))
    assert not lsh_pays_off(plan_bands(0.9))
    assert not lsh_pays_off(plan_bands(0.8))


def test_plan_rejects_tau_outside_open_interval():
    with pytest.raises(ValueError, match="tau"):
        plan_bands(1.0)


def test_candidates_are_exactly_the_pairs_sharing_a_band():
    rng = np.random.default_rng(0)
    tables = SimHashTables(DIM, BandPlan(bits=4, bands=6), seed=3)
    indexed = unit(rng.standard_normal((300, DIM)))
    for start in range(0, 300, 37):  # several runs, merged as they grow
        tables.add(indexed[start : start + 37])
    queries = unit(rng.standard_normal((40, DIM)))
    q, r = tables.candidates(queries)
    kq, ki = tables.keys(queries), tables.keys(indexed)
    expected = {(i, j) for i in range(40) for j in range(300) if np.any(kq[i] == ki[j])}
    assert set(zip(q.tolist(), r.tolist())) == expected
    assert len(q) == len(expected)  # no duplicate pairs
    assert list(zip(q.tolist(), r.tolist())) == sorted(expected)


def test_runs_merge_so_their_number_grows_logarithmically():
    tables = SimHashTables(DIM, BandPlan(bits=8, bands=4))
    rng = np.random.default_rng(1)
    for _ in range(256):
        tables.add(unit(rng.standard_normal((4, DIM))))
    assert len(tables) == 1024
    assert len(tables._runs) <= 2 * math.log2(256)


def test_lsh_finds_the_same_best_match_as_exact_search_for_near_duplicates():
    rng = np.random.default_rng(2)
    base = unit(rng.standard_normal((2000, DIM)))
    exact = EntitySearch(0.95, mode="exact")
    lsh = EntitySearch(0.95, mode="lsh")
    for v in base:
        exact.append(v)
        lsh.append(v)
    exact.index_new_rows()
    lsh.index_new_rows()
    assert lsh.uses_lsh and not exact.uses_lsh
    queries = near_copies(base[:500], 0.97, rng)
    best_e, arg_e = exact.best(queries)
    best_l, arg_l = lsh.best(queries)
    assert np.array_equal(arg_l, arg_e) and np.allclose(best_l, best_e)
    assert np.all(best_l >= 0.95)


def test_lsh_never_reports_a_match_exact_search_would_not():
    rng = np.random.default_rng(3)
    lsh = EntitySearch(0.95, mode="lsh")
    for v in unit(rng.standard_normal((500, DIM))):
        lsh.append(v)
    lsh.index_new_rows()
    queries = unit(rng.standard_normal((200, DIM)))
    best, arg = lsh.best(queries)
    found = np.isfinite(best)
    assert np.allclose(
        best[found], np.einsum("ij,ij->i", queries[found], lsh.matrix()[arg[found]]), atol=1e-5
    )
    assert np.all(best[found] < 0.95)  # random vectors: candidates may exist, none above tau


def test_ties_go_to_the_lowest_row_as_in_exact_search():
    search = EntitySearch(0.95, mode="lsh")
    v = unit(np.ones((1, DIM)))[0]
    for _ in range(3):
        search.append(v)
    search.index_new_rows()
    best, arg = search.best(v[None, :])
    assert arg[0] == 0 and best[0] == pytest.approx(1.0)


def test_auto_switches_to_lsh_at_the_threshold_when_it_pays_off():
    rng = np.random.default_rng(4)
    high = EntitySearch(0.95, mode="auto", switch_at=100)
    low = EntitySearch(0.8, mode="auto", switch_at=100)
    for v in unit(rng.standard_normal((99, DIM))):
        high.append(v)
        low.append(v)
    high.index_new_rows()
    assert not high.uses_lsh
    high.append(unit(rng.standard_normal((1, DIM)))[0])
    high.index_new_rows()
    low.append(unit(rng.standard_normal((1, DIM)))[0])
    low.index_new_rows()
    assert high.uses_lsh and len(high._tables) == 100
    assert not low.uses_lsh  # at tau 0.8 LSH would compare most pairs anyway


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="search mode"):
        EntitySearch(0.95, mode="annoy")  # type: ignore[arg-type]


def test_empty_search_has_no_match():
    best, arg = EntitySearch(0.95).best(unit(np.ones((2, DIM))))
    assert np.all(np.isneginf(best)) and list(arg) == [0, 0]
