"""Benchmark of the incremental entity refiner: seconds and peak memory at 1k / 10k / 100k names,
for each nearest-entity search (exact, lsh, auto), and how far LSH's network is from exact's.

Synthetic runs use precomputed unit vectors (so only the refiner's cost is measured), of two kinds:
"random" (independent directions, 10% near-duplicates at cos ~0.97) and "compositional" (names
built from a shared vocabulary, so names sharing words are similar, as real entity names are).
One run embeds 1k names with the real sentence-transformers model. Prints one JSON object.

    HF_HUB_OFFLINE=1 python -m benchmarks.refiner_bench [--sizes 1000 10000 100000] [--modes exact lsh auto]
        [--exact-max 100000] [--kinds random compositional] [--real 1000]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
import tracemalloc

import numpy as np

from bifrost.graph_builders.entities.refiner import IncrementalEntityRefiner

DIM = 384


class PrecomputedEmbedder:
    """Looks vectors up by name: isolates the refiner's cost from the model's."""

    def __init__(self, names: list[str], matrix: np.ndarray) -> None:
        self.row = {n: i for i, n in enumerate(names)}
        self.matrix = matrix

    @property
    def dim(self) -> int:
        return self.matrix.shape[1]

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.matrix[[self.row[t] for t in texts]]


def synthetic(n: int, seed: int = 0) -> tuple[list[tuple[str, str, str]], list[str], np.ndarray]:
    """n mentions: 60% distinct names with random vectors, 10% near-duplicates (cos ~0.97) of
    them, 30% exact repeats (after normalization) of earlier names."""
    rng = np.random.default_rng(seed)
    n_base = int(n * 0.6)
    base = rng.standard_normal((n_base, DIM)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    names = [f"entity {i}" for i in range(n_base)]
    n_near = int(n * 0.1)
    src = rng.integers(0, n_base, n_near)
    noise = rng.standard_normal((n_near, DIM)).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    near = 0.97 * base[src] + 0.243 * noise
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    names += [f"entity variant {i}" for i in range(n_near)]
    matrix = np.concatenate([base, near])
    mentions = [(nm, "concept", f"p{i % 5000}") for i, nm in enumerate(names)]
    repeats = rng.integers(0, len(names), n - len(mentions))
    # "Entity 3," -> entity 3
    mentions += [(names[j].title() + ",", "concept", f"p{j % 5000}") for j in repeats]
    order = rng.permutation(len(mentions))
    return [mentions[i] for i in order], names, matrix


def compositional(
    n: int, seed: int = 0, vocab: int = 2000
) -> tuple[list[tuple[str, str, str]], list[str], np.ndarray]:
    """n mentions of names "w1 w2 w3" over a shared vocabulary: a name's vector is its words'
    vectors (weighted, head word last and heaviest) plus noise, so names sharing words are similar;
    15% are near-duplicates (one word's weight jittered) and 25% exact repeats."""
    rng = np.random.default_rng(seed)
    words = rng.standard_normal((vocab, DIM)).astype(np.float32)
    n_base = int(n * 0.6)
    triples = rng.integers(0, vocab, (n_base, 3))
    weights = np.array([0.45, 0.6, 1.0], dtype=np.float32)
    base = np.einsum("k,nkd->nd", weights, words[triples]) + 0.3 * rng.standard_normal((n_base, DIM)).astype(
        np.float32
    )
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    names = [f"w{a} w{b} w{c}" for a, b, c in triples]
    n_near = int(n * 0.15)
    src = rng.integers(0, n_base, n_near)
    near = base[src] + 0.012 * rng.standard_normal((n_near, DIM)).astype(np.float32)
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    names += [f"{names[j]} variant {i}" for i, j in enumerate(src)]
    matrix = np.concatenate([base, near])
    names, keep = np.unique(np.array(names), return_index=True)  # a repeated triple is one name
    names, matrix = list(names[np.argsort(keep)]), matrix[np.sort(keep)]
    mentions = [(nm, "concept", f"p{i % 5000}") for i, nm in enumerate(names)]
    repeats = rng.integers(0, len(names), max(0, n - len(mentions)))
    # same name after normalization
    mentions += [(f" {names[j]}  ,", "concept", f"p{j % 5000}") for j in repeats]
    order = rng.permutation(len(mentions))
    return [mentions[i] for i in order], names, matrix


def measure(
    refiner: IncrementalEntityRefiner, mentions: list[tuple[str, str, str]]
) -> tuple[dict, list[str]]:
    tracemalloc.start()
    t = time.perf_counter()
    canonical = refiner.add_many(mentions)
    seconds = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "mentions": len(mentions),
        "entities": len(refiner),
        "seconds": round(seconds, 3),
        "us_per_mention": round(1e6 * seconds / len(mentions), 1),
        "peak_traced_mb": round(peak / 2**20, 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "lsh_in_use": refiner.uses_lsh,
    }, canonical


def real_names(n: int) -> list[tuple[str, str, str]]:
    """n regulation-like entity names (with plural and spacing variants) for the real model."""
    mods = [
        "guardrail",
        "safety net",
        "personal fall arrest",
        "scaffold",
        "ladder",
        "excavation",
        "trench",
        "crane",
        "hoist",
        "lanyard",
        "anchorage",
        "warning line",
        "shoring",
        "hard hat",
        "respirator",
    ]
    heads = [
        "system",
        "component",
        "inspection",
        "requirement",
        "plan",
        "platform",
        "support",
        "device",
        "operator",
        "hazard",
        "training",
        "record",
        "load",
        "opening",
        "edge",
    ]
    quals = ["", "temporary ", "portable ", "mobile ", "steel ", "wooden ", "protective ", "approved "]
    out: list[tuple[str, str, str]] = []
    i = 0
    while len(out) < n:
        q, m, h = (
            quals[i % len(quals)],
            mods[(i // len(quals)) % len(mods)],
            heads[(i // (len(quals) * len(mods))) % len(heads)],
        )
        name = f"{q}{m} {h}" + ("s" if (i // 7) % 3 == 0 else "")
        out.append((name, "concept", f"p{i % 300}"))
        i += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--modes", nargs="+", default=["exact", "lsh", "auto"], choices=["exact", "lsh", "auto"])
    ap.add_argument(
        "--kinds", nargs="+", default=["random", "compositional"], choices=["random", "compositional"]
    )
    ap.add_argument(
        "--exact-max", type=int, default=100_000, help="skip exact search above this many mentions"
    )
    ap.add_argument("--switch-at", type=int, default=20_000, help="entities after which auto switches to LSH")
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--tau", type=float, default=0.95)
    ap.add_argument("--real", type=int, default=1000, help="names for the real-model run (0 to skip)")
    ap.add_argument(
        "--threads", type=int, default=1, help="BLAS/torch threads (1 = reproducible on busy machines)"
    )
    args = ap.parse_args()
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.threads)
    except ImportError:
        pass
    results: dict = {
        "dim": DIM,
        "tau": args.tau,
        "batch_size": args.batch_size,
        "switch_at": args.switch_at,
        "synthetic": [],
        "real": None,
    }
    makers = {"random": synthetic, "compositional": compositional}
    # first-call costs (BLAS, allocator) off the clock
    warm, warm_names, warm_matrix = synthetic(2000, seed=99)
    for mode in args.modes:
        IncrementalEntityRefiner(
            PrecomputedEmbedder(warm_names, warm_matrix), tau=args.tau, search=mode
        ).add_many(warm)
    for kind in args.kinds:
        for n in args.sizes:
            mentions, names, matrix = makers[kind](n)
            runs: dict[str, list[str]] = {}
            for mode in args.modes:
                if mode == "exact" and n > args.exact_max:
                    continue
                refiner = IncrementalEntityRefiner(
                    PrecomputedEmbedder(names, matrix),
                    tau=args.tau,
                    batch_size=args.batch_size,
                    search=mode,
                    switch_at=args.switch_at,
                )
                row, runs[mode] = measure(refiner, mentions)
                if mode != "exact" and "exact" in runs:  # how far the approximate network is from exact's
                    row["entities_exact"] = len(set(runs["exact"]))
                    row["mentions_mapped_differently"] = sum(
                        a != b for a, b in zip(runs[mode], runs["exact"])
                    )
                results["synthetic"].append({"kind": kind, "mode": mode, **row})
                print(json.dumps(results["synthetic"][-1]), file=sys.stderr, flush=True)
    if args.real:
        from bifrost.core.embeddings import SentenceTransformerEmbedder

        emb = SentenceTransformerEmbedder(num_threads=args.threads)
        emb.warm_up()
        refiner = IncrementalEntityRefiner(emb, tau=args.tau, batch_size=args.batch_size)
        results["real"] = {"model": emb.model_name_or_path, **measure(refiner, real_names(args.real))[0]}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
