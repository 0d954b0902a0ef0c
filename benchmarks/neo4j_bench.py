"""Benchmark: the Neo4j store against the embedded store on one Document Navigator Graph.

Reports, as JSON: seconds to write the graph (sections, then HAS + REFERS_TO edges) into each
store, and p50/p95 latency of ``refers_to_closure`` from 200 random provisions (one start
each, ``--depth`` hops), and again from 200 random provisions that cite another one. The graph is either
synthetic, shaped like OSHA Part 1926 (~7k
sections, ~7k HAS, ~1.5k REFERS_TO), or the real corpus built by the pipeline (``--source
corpus``: ingest + navigator build on a scratch embedded store, needs the shared data).

Run (Neo4j from docker/neo4j-launcher/start.sh):

    BIFROST_NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python -m benchmarks.neo4j_bench
    .venv/bin/python -m benchmarks.neo4j_bench --source corpus --corpus osha-1926 --shared ../shared

The benchmark writes into its own corpus name (``<corpus>-bench``) and clears it afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bifrost.core.graph.base import GraphStore
from bifrost.core.types import Edge, EdgeType, Provision, ProvisionKind, make_uid

Graph = tuple[list[Provision], list[Edge]]


def synthetic_graph(corpus: str, sections: int = 7000, refs: int = 1500, seed: int = 7) -> Graph:
    """A tree shaped like a CFR part (part > subparts > sections > paragraphs, 3 levels) plus
    ``refs`` cross-references, 70% of them within the same subpart."""
    rng = random.Random(seed)
    provs: list[Provision] = []

    def add(pid: str, parent: str | None, kind: ProvisionKind, level: int) -> str:
        provs.append(
            Provision(
                corpus=corpus,
                id=pid,
                parent_id=parent,
                kind=kind,
                level=level,
                order=len(provs),
                heading=f"Heading of {pid}",
                text=f"Text of {pid}. " * 8,
            )
        )
        return pid

    part = add("1926", None, ProvisionKind.PART, 0)
    subparts = [add(f"1926 Subpart {chr(65 + i)}", part, ProvisionKind.SUBPART, 1) for i in range(26)]
    by_subpart: dict[str, list[str]] = {s: [] for s in subparts}
    sec_no = 0
    while len(provs) < sections:
        sp = subparts[sec_no * len(subparts) // 300 % len(subparts)]
        sec = add(f"1926.{sec_no + 1}", sp, ProvisionKind.SECTION, 2)
        sec_no += 1
        for a in "abcdefgh"[: rng.randint(2, 8)]:
            pa = add(f"{sec}({a})", sec, ProvisionKind.PARAGRAPH, 3)
            by_subpart[sp].append(pa)
            for n in range(1, rng.randint(1, 4)):
                pn = add(f"{pa}({n})", pa, ProvisionKind.PARAGRAPH, 4)
                by_subpart[sp].append(pn)
                for r in ["i", "ii", "iii"][: rng.randint(0, 3)]:
                    by_subpart[sp].append(add(f"{pn}({r})", pn, ProvisionKind.PARAGRAPH, 5))
            if len(provs) >= sections:
                break
    provs = provs[:sections]
    ids = {p.id for p in provs}
    for sp in by_subpart:
        by_subpart[sp] = [p for p in by_subpart[sp] if p in ids]
    pool = [p for lst in by_subpart.values() for p in lst]
    edges = [
        Edge(type=EdgeType.HAS, source=make_uid(corpus, p.parent_id), target=p.uid)
        for p in provs
        if p.parent_id
    ]
    seen: set[tuple[str, str]] = set()
    groups = [lst for lst in by_subpart.values() if len(lst) > 1]
    while len(seen) < refs:
        if rng.random() < 0.7:
            src, dst = rng.sample(rng.choice(groups), 2)
        else:
            src, dst = rng.sample(pool, 2)
        if (src, dst) not in seen:
            seen.add((src, dst))
            edges.append(
                Edge(
                    type=EdgeType.REFERS_TO,
                    source=make_uid(corpus, src),
                    target=make_uid(corpus, dst),
                    text=f"§ {dst}",
                )
            )
    return provs, edges


def corpus_graph(corpus: str, shared: Path | None, target_corpus: str) -> Graph:
    """The real navigator graph of ``corpus``: ingested and built by the pipeline on a scratch
    embedded store, then re-keyed to ``target_corpus`` so the benchmark never touches the
    corpus itself."""
    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings

    with tempfile.TemporaryDirectory() as home:
        bf = Bifrost(Settings(home=Path(home), shared_dir=shared, store="embedded"))
        bf.ingest(corpus)
        bf.build_navigator(corpus)
        provs = bf.sql.provisions(corpus)
        g = bf.graph.graph  # the embedded store's networkx graph
        raw_edges = [(u, v, d) for u, v, d in g.edges(data=True) if d.get("type") in ("HAS", "REFERS_TO")]
        bf.close()

    def rekey(uid: str) -> str:
        return make_uid(target_corpus, uid.split(":", 1)[1])

    provisions = [p.model_copy(update={"corpus": target_corpus}) for p in provs]
    edges = [
        Edge(type=EdgeType(d["type"]), source=rekey(u), target=rekey(v), text=d.get("text"))
        for u, v, d in raw_edges
    ]
    return provisions, edges


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def _closure_latency(store: GraphStore, starts: list[str], depth: int, prefix: str) -> dict:
    for uid in starts[:10]:  # warm-up: caches, query plans
        store.refers_to_closure([uid], depth)
    lat, reached = [], []
    for uid in starts:
        t = time.perf_counter()
        got = store.refers_to_closure([uid], depth)
        lat.append((time.perf_counter() - t) * 1000)
        reached.append(len(got))
    return {
        f"{prefix}_p50_ms": round(_percentile(lat, 0.5), 2),
        f"{prefix}_p95_ms": round(_percentile(lat, 0.95), 2),
        f"{prefix}_mean_reached": round(statistics.mean(reached), 2),
    }


def measure(store: GraphStore, corpus: str, graph: Graph, starts: dict[str, list[str]], depth: int) -> dict:
    provisions, edges = graph
    store.clear(corpus)
    t0 = time.perf_counter()
    store.upsert_sections(provisions)
    store.upsert_edges(edges)
    write_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    store.upsert_sections(provisions)
    store.upsert_edges(edges)
    rewrite_s = time.perf_counter() - t1
    out: dict = {"write_s": round(write_s, 2), "rewrite_same_graph_s": round(rewrite_s, 2)}
    for prefix, uids in starts.items():
        out.update(_closure_latency(store, uids, depth, prefix))
    out["edges_by_type"] = store.stats(corpus).edges_by_type
    store.clear(corpus)
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", choices=["synthetic", "corpus"], default="synthetic")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--shared", type=Path, default=None, help="shared data folder (for --source corpus)")
    ap.add_argument("--neo4j-uri", default=os.environ.get("BIFROST_NEO4J_URI", "bolt://127.0.0.1:7687"))
    ap.add_argument("--starts", type=int, default=200, help="random start provisions for the closure")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--stores", default="embedded,neo4j")
    args = ap.parse_args(argv)

    bench_corpus = f"{args.corpus}-bench"
    build: Callable[[], Graph]
    if args.source == "synthetic":
        build = lambda: synthetic_graph(bench_corpus)  # noqa: E731
    else:
        build = lambda: corpus_graph(args.corpus, args.shared, bench_corpus)  # noqa: E731
    t = time.perf_counter()
    graph = build()
    build_s = time.perf_counter() - t
    rng = random.Random(args.seed)
    referring = sorted({e.source for e in graph[1] if e.type is EdgeType.REFERS_TO})
    # "closure": uniform over all provisions (most have no reference); "closure_referring":
    # over provisions that cite at least one other, where the traversal has work to do.
    starts = {
        "closure": [p.uid for p in rng.sample(graph[0], min(args.starts, len(graph[0])))],
        "closure_referring": rng.sample(referring, min(args.starts, len(referring))),
    }
    result: dict = {
        "source": args.source,
        "corpus": args.corpus if args.source == "corpus" else "synthetic",
        "sections": len(graph[0]),
        "has_edges": sum(e.type is EdgeType.HAS for e in graph[1]),
        "refers_to_edges": sum(e.type is EdgeType.REFERS_TO for e in graph[1]),
        "graph_build_s": round(build_s, 2),
        "closure_starts": len(starts["closure"]),
        "closure_depth": args.depth,
        "stores": {},
    }
    wanted = args.stores.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        if "embedded" in wanted:
            from bifrost.core.graph.embedded import EmbeddedGraphStore
            from bifrost.core.store.sql_store import SqlStore

            emb = EmbeddedGraphStore(SqlStore(f"sqlite:///{Path(tmp) / 'bench.db'}"))
            result["stores"]["embedded"] = measure(emb, bench_corpus, graph, starts, args.depth)
            emb.close()
        if "neo4j" in wanted:
            from bifrost.core.graph.neo4j_store import Neo4jGraphStore

            neo = Neo4jGraphStore(args.neo4j_uri, batch_size=args.batch_size)
            neo.ensure_schema()
            result["stores"]["neo4j"] = {
                "uri": args.neo4j_uri,
                "batch_size": args.batch_size,
                **measure(neo, bench_corpus, graph, starts, args.depth),
            }
            neo.close()
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
