"""Benchmark: the MCP `search` tool against the same in-process facade call.

N calls (default 50: the first N questions of the set) both ways: `Bifrost.search` in this process and
`search` through the SDK's client against `bifrost mcp` started as a subprocess (stdio, or streamable HTTP
with --transport http), both warmed up first. With ``--code`` (repeatable) one server per code tree runs (its
packages first on PYTHONPATH), so that code before and after a change is measured in the same run. The calls
are interleaved question by question (the order of the in-process call and the servers rotates), so that all
see the same load on a shared machine; reported per server: p50 / p95 of the call and of the paired overhead
(the MCP call minus the in-process call for the same question: what the protocol, the transport and the result
records cost), the server's voluntary context switches per call (all its threads, from /proc on Linux: each is
a thread going to sleep to be woken again, a count the machine's load does not change), and the 1-minute load
average before and after. Run on a copy of a built home (the server only reads, but keep the original
untouched): `cp -a .bifrost-demo /tmp/osha && python -m benchmarks.mcp_bench --home /tmp/osha [--code OLD
--code .]`.
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
from contextlib import AsyncExitStack, ExitStack
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def search_arguments(description: str | None) -> argparse.ArgumentParser:
    """The options every MCP search benchmark takes: the home, corpus, questions, calls and k."""
    ap = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--home", type=Path, required=True, help="A copy of a BIFROST_HOME with the corpus built")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--questions", type=Path, default=ROOT.parent / "shared" / "eval" / "osha-loi-dev.jsonl")
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--k", type=int, default=10)
    return ap


def read_questions(path: Path, n: int) -> list[str]:
    """The first ``n`` questions of a JSONL file with a 'question' field."""
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    return [json.loads(line)["question"] for line in lines][:n]


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def summary(times_ms: list[float]) -> dict:
    return {"p50_ms": round(statistics.median(times_ms), 1), "p95_ms": round(percentile(times_ms, 0.95), 1)}


def server_command(home: Path, corpus: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "bifrost.app.cli.app",
        "--home",
        str(home),
        "mcp",
        "--corpus",
        corpus,
        *extra,
    ]


def server_env(code: Path = ROOT) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(code), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def server_pids() -> dict[Path, int]:
    """This process's child processes by working folder (each server runs in its code tree); Linux only."""
    pids = {}
    for children in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                pids[Path(os.readlink(f"/proc/{pid}/cwd"))] = int(pid)
            except OSError:
                continue
    return pids


def voluntary_switches(pid: int | None) -> int | None:
    """Voluntary context switches of every live thread of a process (None when /proc cannot tell)."""
    if pid is None:
        return None
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            total += sum(
                int(line.split()[1])
                for line in status.read_text().splitlines()
                if line.startswith("voluntary_ctxt_switches")
            )
        except OSError:
            continue
    return total


async def paired(
    bf: Bifrost, targets: list, corpus: str, questions: list[str], k: int, codes: list[Path]
) -> tuple[list[float], list[list[float]], list[float | None]]:
    """In-process ms per question, each server's MCP ms per question (interleaved), and each
    server's voluntary context switches per call."""
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(Client(t, read_timeout_seconds=600)) for t in targets]

        async def remote(client: Client, q: str) -> float:
            t = time.perf_counter()
            result = await client.call_tool("search", {"query": q, "corpus": corpus, "k": k})
            if result.is_error:
                raise RuntimeError(f"search failed: {result.content}")
            return (time.perf_counter() - t) * 1000

        def local(q: str) -> float:
            t = time.perf_counter()
            bf.search(q, corpus, k)
            return (time.perf_counter() - t) * 1000

        local(questions[0])  # load models and indexes on every side
        for c in clients:
            await remote(c, questions[0])
        pids = server_pids()
        pid_of = [pids.get(code) for code in codes]
        switches = [voluntary_switches(pid) for pid in pid_of]
        here: list[float] = []
        there: list[list[float]] = [[] for _ in clients]
        slots = [-1, *range(len(clients))]  # -1: the in-process call
        for i, q in enumerate(questions):
            shift = i % len(slots)
            for slot in slots[shift:] + slots[:shift]:
                if slot < 0:
                    here.append(local(q))
                else:
                    there[slot].append(await remote(clients[slot], q))
        after = [voluntary_switches(pid) for pid in pid_of]
        per_call = [
            round((b - a) / len(questions), 1) if a is not None and b is not None else None
            for a, b in zip(switches, after)
        ]
        return here, there, per_call


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def http_server(stack: ExitStack, home: Path, corpus: str, code: Path) -> str:
    """Start `bifrost mcp --transport http` from a code tree (stopped when the stack closes); its URL."""
    port = free_port()
    proc = subprocess.Popen(
        server_command(home, corpus, "--transport", "http", "--port", str(port)),
        env=server_env(code),
        cwd=str(code),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def stop() -> None:
        proc.terminate()
        proc.wait(timeout=30)

    stack.callback(stop)
    deadline = time.monotonic() + 600
    while not port_open(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the MCP server of {code} did not start")
        time.sleep(0.2)
    return f"http://127.0.0.1:{port}/mcp"


def run(
    home: Path, corpus: str, questions: list[str], k: int, transport: str, codes: list[Path]
) -> tuple[list[float], list[list[float]], list[float | None]]:
    bf = Bifrost(Settings(home=home))
    try:
        with ExitStack() as stack:
            if transport == "stdio":
                cmd = server_command(home, corpus)
                targets: list = [
                    StdioServerParameters(command=cmd[0], args=cmd[1:], env=server_env(c), cwd=str(c))
                    for c in codes
                ]
            else:
                targets = [http_server(stack, home, corpus, c) for c in codes]
            return anyio.run(paired, bf, targets, corpus, questions, k, codes)
    finally:
        bf.close()


def main() -> None:
    ap = search_arguments(__doc__)
    ap.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    ap.add_argument(
        "--code",
        type=Path,
        action="append",
        help="Code tree whose server to measure (repeatable: one server each, same run; default: this "
        "checkout)",
    )
    args = ap.parse_args()
    codes = [c.resolve() for c in args.code or [ROOT]]
    questions = read_questions(args.questions, args.calls)
    load_before = os.getloadavg()[0]
    here, there, switches = run(args.home, args.corpus, questions, args.k, args.transport, codes)
    servers = [
        {
            "code": str(code),
            "mcp": summary(times),
            "paired_overhead": summary([b - a for a, b in zip(here, times)]),
            "server_voluntary_context_switches_per_call": per_call,
        }
        for code, times, per_call in zip(codes, there, switches)
    ]
    print(
        json.dumps(
            {
                "benchmark": "MCP search tool vs in-process facade search",
                "corpus": args.corpus,
                "calls": len(questions),
                "k": args.k,
                "transport": args.transport,
                "in_process": summary(here),
                "servers": servers,
                "load_average_1min": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
