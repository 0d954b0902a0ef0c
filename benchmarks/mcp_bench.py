"""Benchmark: the MCP `search` tool against the same in-process facade call.

N calls (default 50: the first N questions of the set) both ways: `Bifrost.search` in this
process and `search` through the SDK's client against `bifrost mcp` started as a subprocess
(stdio, or streamable HTTP with --transport http), both warmed up first. The two are
interleaved question by question (alternating which goes first), so that both see the same load
on a shared machine; reported: p50 / p95 of each, and the p50 of the paired differences (what
the protocol, the transport and the result records cost).
Run on a copy of a built home (the server only reads, but keep the original untouched):
`cp -a .bifrost-demo /tmp/osha && python benchmarks/mcp_bench.py --home /tmp/osha`.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def summary(times_ms: list[float]) -> dict:
    return {"p50_ms": round(statistics.median(times_ms), 1), "p95_ms": round(percentile(times_ms, 0.95), 1)}


def server_command(home: Path, corpus: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "bifrost.app.cli.app", "--home", str(home), "mcp", "--corpus", corpus, *extra]


def server_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


async def paired(bf: Bifrost, target, corpus: str, questions: list[str], k: int) -> tuple[list[float], list[float]]:
    """(in-process ms, MCP ms) per question, interleaved."""
    async with Client(target, read_timeout_seconds=600) as client:

        async def remote(q: str) -> float:
            t = time.perf_counter()
            result = await client.call_tool("search", {"query": q, "corpus": corpus, "k": k})
            if result.is_error:
                raise RuntimeError(f"search failed: {result.content}")
            return (time.perf_counter() - t) * 1000

        def local(q: str) -> float:
            t = time.perf_counter()
            bf.search(q, corpus, k)
            return (time.perf_counter() - t) * 1000

        local(questions[0])  # load models and indexes on both sides
        await remote(questions[0])
        here, there = [], []
        for i, q in enumerate(questions):
            if i % 2:
                there.append(await remote(q))
                here.append(local(q))
            else:
                here.append(local(q))
                there.append(await remote(q))
        return here, there


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def run(home: Path, corpus: str, questions: list[str], k: int, transport: str) -> tuple[list[float], list[float]]:
    bf = Bifrost(Settings(home=home))
    try:
        if transport == "stdio":
            cmd = server_command(home, corpus)
            params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=server_env(), cwd=str(ROOT))
            return anyio.run(paired, bf, params, corpus, questions, k)
        port = free_port()
        proc = subprocess.Popen(server_command(home, corpus, "--transport", "http", "--port", str(port)),
                                env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 600
            while not port_open(port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the MCP server did not start")
                time.sleep(0.2)
            return anyio.run(paired, bf, f"http://127.0.0.1:{port}/mcp", corpus, questions, k)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    finally:
        bf.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="A copy of a BIFROST_HOME with the corpus built")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--questions", type=Path, default=ROOT.parent / "shared" / "eval" / "osha-loi-dev.jsonl")
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    args = ap.parse_args()
    lines = [line for line in args.questions.read_text().splitlines() if line.strip()]
    questions = [json.loads(line)["question"] for line in lines][: args.calls]
    here, there = run(args.home, args.corpus, questions, args.k, args.transport)
    local, remote = summary(here), summary(there)
    print(json.dumps({
        "benchmark": "MCP search tool vs in-process facade search", "corpus": args.corpus, "calls": len(questions),
        "k": args.k, "transport": args.transport, "in_process": local, "mcp": remote,
        "difference_of_p50_ms": round(remote["p50_ms"] - local["p50_ms"], 1),
        "paired_overhead_p50_ms": round(statistics.median(b - a for a, b in zip(here, there)), 1),
    }, indent=2))


if __name__ == "__main__":
    main()
