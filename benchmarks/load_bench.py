"""Load test of `POST /api/ask` against a real `bifrost serve` process on 127.0.0.1.

Copies a built Bifrost home (the SQLite database through the backup API, then the other files),
starts `bifrost serve` over the copy in its own process (so the clients do not share the server's
interpreter), waits for `/api/health`, then runs N client threads (httpx, keep-alive) that cycle
through questions until the time limit or the request limit, whichever comes first. Prints one
JSON object: requests/s, latency percentiles of successful requests, errors by status, server
start time and peak RSS. The copy is deleted afterwards (``--keep`` keeps it).

``--workers 1,4`` runs the same load against `serve --workers 1` and then `--workers 4` in one run
(one after the other, never together) and reports the memory of each server's whole process tree
(the gunicorn parent and its forked workers): the sum of PSS (shared pages counted once, split
between the processes sharing them: the honest total) and the sum of RSS (shared pages counted in
every process), sampled every 2 s during the load; and the ratios of the last run to the first.

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 python -m benchmarks.load_bench \
        --home /work/main/.bifrost-demo --clients 16 --seconds 120 --workers 1,4
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

from benchmarks.web_bench import QUESTIONS, percentile  # the same questions as web_bench.py

DB_FILES = ("bifrost.db", "bifrost.db-wal", "bifrost.db-shm")


def copy_home(src: Path, dst: Path) -> None:
    """A consistent copy of a home that may be in use: SQLite backup API, then every other file."""
    dst.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(f"file:{src / 'bifrost.db'}?mode=ro", uri=True)
    target = sqlite3.connect(dst / "bifrost.db")
    with target:
        source.backup(target)
    source.close()
    target.close()
    for item in src.iterdir():
        if item.name in DB_FILES:
            continue
        if item.is_dir():
            shutil.copytree(item, dst / item.name, symlinks=True)
        else:
            shutil.copy2(item, dst / item.name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    home: Path, corpus: str, port: int, log_path: Path, timeout: float, workers: int = 1
) -> tuple[subprocess.Popen, float]:
    """`bifrost serve --workers N` over ``home`` on 127.0.0.1:``port``; returns once /api/health answers
    200."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")])
        ),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "bifrost.app.cli.app",
        "--home",
        str(home),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--corpus",
        corpus,
        "--workers",
        str(workers),
    ]
    t0 = time.perf_counter()
    log = log_path.open("w")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/api/health"
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with code {proc.returncode}; see {log_path}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return proc, time.perf_counter() - t0
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    stop_server(proc)
    raise SystemExit(f"the server did not answer {url} within {timeout:.0f} s; see {log_path}")


def stop_server(proc: subprocess.Popen) -> None:
    """SIGTERM (gunicorn's parent then stops its workers gracefully), and SIGKILL to the whole
    process group as a last resort, so no forked worker outlives the bench."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the server was started in its own session: its group
    except ProcessLookupError:
        pass


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def process_tree(root: int) -> list[int]:
    """``root`` and every process descended from it (read from /proc)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(parents.get(pid, []))
    return tree


def smaps_kb(pid: int) -> dict[str, int]:
    """Rss and Pss of one process in kB (/proc/<pid>/smaps_rollup); empty when it is gone."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return {}
    return {
        k.rstrip(":"): int(v) for k, v, *_ in (line.split() for line in lines[1:]) if k in ("Rss:", "Pss:")
    }


def tree_memory_mb(root: int) -> dict[str, float | int]:
    """Processes, sum of PSS and sum of RSS (MB) of the server's process tree right now."""
    sizes = [smaps_kb(pid) for pid in process_tree(root)]
    sizes = [s for s in sizes if s]
    return {
        "processes": len(sizes),
        "pss_mb": round(sum(s["Pss"] for s in sizes) / 1024, 1),
        "rss_mb": round(sum(s["Rss"] for s in sizes) / 1024, 1),
    }


class MemorySampler(threading.Thread):
    """Samples `tree_memory_mb` every ``every`` seconds until stopped; keeps the peaks."""

    def __init__(self, root: int, every: float = 2.0) -> None:
        super().__init__(daemon=True)
        self.root, self.every, self.done = root, every, threading.Event()
        self.peak: dict[str, float | int] = {"processes": 0, "pss_mb": 0.0, "rss_mb": 0.0}

    def run(self) -> None:
        while not self.done.is_set():
            now = tree_memory_mb(self.root)
            self.peak = {k: max(self.peak[k], now[k]) for k in self.peak}
            self.done.wait(self.every)

    def stop(self) -> dict[str, float | int]:
        self.done.set()
        self.join(timeout=30)
        return self.peak


class Budget:
    """Shared stop condition: a deadline and a request count."""

    def __init__(self, seconds: float, max_requests: int) -> None:
        self.deadline = time.perf_counter() + seconds
        self.left = max_requests
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.left <= 0 or time.perf_counter() >= self.deadline:
                return False
            self.left -= 1
            return True


def client(
    base: str, corpus: str, offset: int, budget: Budget, timeout: float, results: list, errors: list
) -> None:
    i = offset
    with httpx.Client(base_url=base, timeout=timeout) as c:
        while budget.take():
            q = QUESTIONS[i % len(QUESTIONS)]
            i += 1
            t0 = time.perf_counter()
            try:
                r = c.post("/api/ask", json={"question": q, "corpus": corpus})
                status = r.status_code
                if status != 200:
                    errors.append(f"{status}: {r.text[:160]}")
            except httpx.HTTPError as e:
                status = type(e).__name__
                errors.append(f"{status}: {e}")
            results.append((time.perf_counter() - t0, status))


def run_load(base: str, corpus: str, clients: int, seconds: float, max_requests: int, timeout: float) -> dict:
    results: list[tuple[float, int | str]] = []
    errors: list[str] = []
    budget = Budget(seconds, max_requests)
    t0 = time.perf_counter()
    threads = [
        threading.Thread(target=client, args=(base, corpus, k, budget, timeout, results, errors), daemon=True)
        for k in range(clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + timeout + 30)
    elapsed = time.perf_counter() - t0
    ok = [lat for lat, status in results if status == 200]
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "requests": len(results),
        "ok": len(ok),
        "errors": len(results) - len(ok),
        "status_counts": {str(k): v for k, v in sorted(Counter(str(s) for _, s in results).items())},
        "error_samples": errors[:5],
        "requests_per_second": round(len(ok) / elapsed, 2) if elapsed else 0.0,
        "latency_p50_ms": round(1000 * percentile(ok, 0.50), 1),
        "latency_p95_ms": round(1000 * percentile(ok, 0.95), 1),
        "latency_p99_ms": round(1000 * percentile(ok, 0.99), 1),
        "latency_max_ms": round(1000 * max(ok, default=0.0), 1),
        "latency_mean_ms": round(1000 * statistics.fmean(ok), 1) if ok else 0.0,
    }


def measure(home: Path, log_path: Path, workers: int, args: argparse.Namespace) -> dict:
    """One server with ``workers`` workers over ``home``: the load report and the process tree's memory."""
    port = free_port()
    proc, started = start_server(home, args.corpus, port, log_path, args.start_timeout, workers)
    try:
        idle = tree_memory_mb(proc.pid)
        sampler = MemorySampler(proc.pid)
        sampler.start()
        load_before = os.getloadavg()[0]
        report = run_load(
            f"http://127.0.0.1:{port}",
            args.corpus,
            args.clients,
            args.seconds,
            args.max_requests,
            args.request_timeout,
        )
        after_load = tree_memory_mb(proc.pid)
        peak = sampler.stop()
        return {
            "workers": workers,
            "url": f"http://127.0.0.1:{port}/api/ask",
            "corpus": args.corpus,
            "server_start_seconds": round(started, 1),
            "server_peak_rss_mb": peak_rss_mb(proc.pid),
            "memory_processes": after_load["processes"],
            "memory_pss_mb": after_load["pss_mb"],
            "memory_rss_mb": after_load["rss_mb"],
            "memory_peak_pss_mb": peak["pss_mb"],
            "memory_peak_rss_mb": peak["rss_mb"],
            "memory_idle_pss_mb": idle["pss_mb"],
            "load_average_1min_before": round(load_before, 2),
            "load_average_1min_after": round(os.getloadavg()[0], 2),
            "load_average_1_5_15_after": [round(x, 2) for x in os.getloadavg()],
            **report,
        }
    finally:
        stop_server(proc)


def worker_counts(text: str) -> list[int]:
    """``--workers 1,4`` as [1, 4]; each count 1 or more."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--workers takes counts such as 1,4 (got {text!r})") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"--workers counts must be 1 or more (got {text!r})")
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--home", type=Path, required=True, help="A built Bifrost home (read only: the bench works on a copy)"
    )
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=120.0, help="Time limit of the load phase")
    ap.add_argument("--max-requests", type=int, default=50_000, help="Request limit of the load phase")
    ap.add_argument("--request-timeout", type=float, default=60.0)
    ap.add_argument(
        "--start-timeout", type=float, default=600.0, help="Seconds to wait for the server's warm-up"
    )
    ap.add_argument(
        "--workers",
        type=worker_counts,
        default=[1],
        help="Worker counts to run one after the other, e.g. 1,4 (memory and speed reported for each)",
    )
    ap.add_argument("--keep", action="store_true", help="Keep the copied home (and its server.log)")
    ap.add_argument("--out", type=Path, help="Also write the JSON report here")
    args = ap.parse_args()
    if args.clients < 1 or args.seconds <= 0 or args.max_requests < 1:
        ap.error("--clients, --seconds and --max-requests must be positive")
    if not (args.home / "bifrost.db").exists():
        ap.error(f"{args.home} has no bifrost.db")
    work = Path(tempfile.mkdtemp(prefix="bifrost-load-"))
    copy = work / "home"
    t0 = time.perf_counter()
    copy_home(args.home, copy)
    copied = time.perf_counter() - t0
    runs = []
    try:
        for workers in args.workers:
            runs.append(measure(copy, work / f"server-{workers}.log", workers, args))
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    report = {"home_copy_seconds": round(copied, 1), "cpus": os.cpu_count(), "runs": runs}
    if len(runs) > 1:
        first, last = runs[0], runs[-1]
        report[f"ratio_{last['workers']}_to_{first['workers']}_workers"] = {
            key: round(last[key] / first[key], 2) if first[key] else None
            for key in (
                "memory_pss_mb",
                "memory_rss_mb",
                "requests_per_second",
                "latency_p50_ms",
                "latency_p95_ms",
            )
        }
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
