"""The incremental refiner merges exact and near-duplicate entities, one by one or in batches."""

import hashlib

import numpy as np
import pytest

from bifrost.core.embeddings import Embedder
from bifrost.graph_builders.entities.refiner import IncrementalEntityRefiner, relation_key, relation_text

DIM = 64


class FakeEmbedder:
    """Hand-set vectors for named strings; every other string gets a stable pseudo-random unit vector."""

    def __init__(self, fixed: dict[str, np.ndarray] | None = None) -> None:
        self.fixed = fixed or {}
        self.calls: list[list[str]] = []

    @property
    def dim(self) -> int:
        return DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = []
        for t in texts:
            if t in self.fixed:
                v = self.fixed[t]
            else:
                seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
                v = np.random.default_rng(seed).standard_normal(DIM)
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows, dtype=np.float32)


def near(base: np.ndarray, cos: float, seed: int) -> np.ndarray:
    """A unit vector at cosine ``cos`` from unit ``base``."""
    r = np.random.default_rng(seed).standard_normal(DIM)
    r -= r.dot(base) * base
    r /= np.linalg.norm(r)
    return cos * base + np.sqrt(1 - cos**2) * r


BASE = np.eye(DIM)[0]
FIXED = {
    "guardrail system": BASE,
    "guard rail system": near(BASE, 0.98, 1),  # above tau
    "guardrail": near(BASE, 0.90, 2),  # below tau
}


@pytest.fixture
def refiner() -> IncrementalEntityRefiner:
    return IncrementalEntityRefiner(FakeEmbedder(FIXED), tau=0.95, corpus="osha-1926")


def test_fake_embedder_is_an_embedder():
    assert isinstance(FakeEmbedder(), Embedder)


def test_exact_normalized_match_appends_the_provision_without_embedding_again(refiner):
    assert refiner.add("Guardrail Systems", "concept", "1926.502(b)") == "guardrail system"
    calls = len(refiner.embedder.calls)
    assert refiner.add("guardrail system", "concept", "1926.502(c)") == "guardrail system"
    assert len(refiner.embedder.calls) == calls
    [e] = refiner.entities()
    assert e.section_ids == ("1926.502(b)", "1926.502(c)") and e.corpus == "osha-1926"


def test_same_provision_twice_is_recorded_once(refiner):
    refiner.add("guardrail system", "", "p1")
    refiner.add("guardrail systems", "", "p1")
    assert refiner.entities()[0].section_ids == ("p1",)


def test_cosine_above_tau_merges_into_the_existing_entity(refiner):
    refiner.add("guardrail system", "", "p1")
    assert refiner.add("guard rail system", "", "p2") == "guardrail system"
    assert [(e.name, e.section_ids) for e in refiner.entities()] == [("guardrail system", ("p1", "p2"))]


def test_cosine_below_tau_creates_a_new_entity(refiner):
    refiner.add("guardrail system", "", "p1")
    assert refiner.add("guardrail", "", "p2") == "guardrail"
    assert [e.name for e in refiner.entities()] == ["guardrail system", "guardrail"]


def test_merge_goes_to_the_most_similar_entity():
    a, b = np.eye(DIM)[0], np.eye(DIM)[1]
    unit = lambda v: v / np.linalg.norm(v)  # noqa: E731
    fixed = {
        "alpha": a,
        "beta": 0.8 * a + 0.6 * b,
        "near alpha": unit(0.95 * a + 0.31 * b),
        "near beta": unit(0.85 * a + 0.53 * b),
    }
    r = IncrementalEntityRefiner(FakeEmbedder(fixed), tau=0.85)
    assert r.add_many([("alpha", "", "p"), ("beta", "", "p")]) == ["alpha", "beta"]  # cos 0.8 < tau
    assert r.add("near alpha", "", "q") == "alpha"  # cos 0.95 to alpha, 0.95- to beta
    assert r.add("near beta", "", "q") == "beta"


def test_tau_one_merges_only_exact_normalized_names():
    r = IncrementalEntityRefiner(FakeEmbedder({"a thing": BASE, "another thing": BASE}), tau=1.0)
    r.add_many([("a thing", "", "p1"), ("another thing", "", "p2"), ("A Thing", "", "p3")])
    assert [(e.name, e.section_ids) for e in r.entities()] == [
        ("thing", ("p1", "p3")),
        ("another thing", ("p2",)),
    ]


def _mentions(n: int, seed: int = 0) -> tuple[list[tuple[str, str, str]], dict[str, np.ndarray]]:
    """Names in clusters of near-duplicates (cos 0.97-0.99) plus exact repeats, with fixed vectors."""
    rng = np.random.default_rng(seed)
    fixed: dict[str, np.ndarray] = {}
    names = []
    for c in range(n // 4):
        base = rng.standard_normal(DIM)
        base /= np.linalg.norm(base)
        for k in range(3):
            name = f"cluster {c} variant {k}"
            fixed[name] = base if k == 0 else near(base, 0.97 + 0.01 * k, seed * 1000 + c * 10 + k)
            names.append(name)
        names.append(f"Cluster {c} Variant 0")  # exact repeat after normalization
    order = rng.permutation(len(names))
    return [(names[i], "", f"p{j % 7}") for j, i in enumerate(order)], fixed


def test_batch_equals_one_by_one():
    mentions, fixed = _mentions(200)
    one = IncrementalEntityRefiner(FakeEmbedder(fixed), tau=0.95)
    canon_one = [one.add(*m) for m in mentions]
    batched = IncrementalEntityRefiner(FakeEmbedder(fixed), tau=0.95, batch_size=64, initial_capacity=8)
    canon_batched = batched.add_many(mentions)
    assert canon_batched == canon_one
    assert batched.entities() == one.entities()
    assert len(one) == 50  # one entity per cluster
    n1, m1 = one.entity_matrix()
    n2, m2 = batched.entity_matrix()
    assert n1 == n2 and np.allclose(m1, m2)


def test_intra_batch_duplicates_merge_into_the_earlier_name():
    r = IncrementalEntityRefiner(FakeEmbedder(FIXED), tau=0.95)
    out = r.add_many(
        [("guard rail system", "", "p1"), ("guardrail system", "", "p2"), ("guardrail", "", "p3")]
    )
    assert out == ["guard rail system", "guard rail system", "guardrail"]
    assert [e.section_ids for e in r.entities()] == [("p1", "p2"), ("p3",)]


def test_matrix_grows_past_initial_capacity():
    r = IncrementalEntityRefiner(FakeEmbedder(), tau=0.95, initial_capacity=2)
    r.add_many([(f"thing {i}", "", "p") for i in range(10)])
    names, matrix = r.entity_matrix()
    assert len(names) == 10 and matrix.shape == (10, DIM) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def test_triples_map_to_canonical_entities_and_merge_section_ids(refiner):
    refiner.add_many([("guardrail system", "", "p1"), ("employees", "", "p1")])
    refiner.add_triple("Employees", "shall_be_protected_by", "guardrail system", "p1")
    refiner.add_triple("employee", "shall be protected by", "guard rail system", "p2")
    [t] = refiner.triples()
    assert (t.head, t.relation, t.tail, t.section_ids) == (
        "employee",
        "shall_be_protected_by",
        "guardrail system",
        ("p1", "p2"),
    )
    assert refiner.entities()[0].section_ids == ("p1", "p2")


def test_self_loop_after_merge_is_dropped(refiner):
    assert refiner.add_triple("guardrail system", "be", "guard rail system", "p1") is None
    assert refiner.triples() == []


def test_triple_embedding_is_head_relation_tail_concatenated(refiner):
    refiner.add_triple("employee", "shall_use", "guardrail system", "p1")
    triples, matrix = refiner.triple_matrix()
    names, ent = refiner.entity_matrix()
    rels, rel = refiner.relation_matrix()
    assert matrix.shape == (1, 3 * DIM) and rels == ["shall_use"]
    assert np.allclose(matrix[0, :DIM], ent[names.index("employee")])
    assert np.allclose(matrix[0, DIM : 2 * DIM], rel[0])
    assert np.allclose(matrix[0, 2 * DIM :], ent[names.index("guardrail system")])
    assert ["shall use"] in refiner.embedder.calls


def test_relation_helpers():
    assert relation_key("Shall Protect-From") == "shall_protect_from"
    assert relation_text("shall_not_be_used_as") == "shall not be used as"


def test_empty_name_is_rejected(refiner):
    with pytest.raises(ValueError) as info:
        refiner.add("  ,, ", "", "p9")
    assert "p9" in str(info.value)


@pytest.mark.parametrize("tau", [0.0, 1.5])
def test_tau_out_of_range_is_rejected(tau):
    with pytest.raises(ValueError):
        IncrementalEntityRefiner(FakeEmbedder(), tau=tau)


def test_lsh_search_gives_the_same_network_as_exact_search():
    mentions, fixed = _mentions(400, seed=5)
    exact = IncrementalEntityRefiner(FakeEmbedder(fixed), tau=0.95, batch_size=64, search="exact")
    lsh = IncrementalEntityRefiner(FakeEmbedder(fixed), tau=0.95, batch_size=64, search="lsh")
    assert lsh.add_many(mentions) == exact.add_many(mentions)
    assert lsh.uses_lsh and not exact.uses_lsh
    assert lsh.entities() == exact.entities() and len(lsh) == 100


def test_auto_search_switches_to_lsh_past_switch_at_and_keeps_merging():
    mentions, fixed = _mentions(400, seed=6)
    auto = IncrementalEntityRefiner(FakeEmbedder(fixed), tau=0.95, batch_size=16, switch_at=40)
    exact = IncrementalEntityRefiner(FakeEmbedder(fixed), tau=0.95, batch_size=16, search="exact")
    assert auto.add_many(mentions) == exact.add_many(mentions)
    assert auto.uses_lsh and len(auto) == 100
