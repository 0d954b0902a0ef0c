"""Load test of the web API: requests/second and p50/p95 latency of POST /api/ask.

Starts the real app (uvicorn, loopback) over a Bifrost home (embedded store; offline mode when no
chat model is configured), warms it up, then runs N client threads (httpx) for D seconds, each
cycling through a list of questions. Prints one JSON object (errors counted, not raised).

    HF_HUB_OFFLINE=1 python -m benchmarks.web_bench --home /tmp/bfweb [--clients 8] [--seconds 60]
    HF_HUB_OFFLINE=1 python -m benchmarks.web_bench --url http://127.0.0.1:8000   # an already running server
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import threading
import time
from pathlib import Path

import httpx

QUESTIONS = (
    "How to protect excavation work from rainstorm hazard?",
    "Can a warning line plus a personal fall arrest system be used for all leading-edge work?",
    "What are the requirements for guardrail systems on scaffolds?",
    "When must a competent person inspect a trench?",
    "What is the minimum strength of a safety net?",
    "How must ladders extend above the landing surface?",
    "What protection is required against falling objects?",
    "When are hard hats required on construction sites?",
)


def start_server(home: Path, corpus: str) -> tuple[str, object, dict]:
    """The app over ``home`` on a free loopback port, warmed up; returns (url, server, facts)."""
    import uvicorn

    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings
    from bifrost.app.web import create_app

    bf = Bifrost(Settings(home=home, store="embedded"))
    app = create_app(bf, [corpus])
    warm = app.state.web.warm_up()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, {"warm_up_seconds": warm, "mode": app.state.web.mode}


def client_loop(url: str, corpus: str, offset: int, stop_at: float, out: list, errors: list) -> None:
    """POST questions until ``stop_at``, recording (latency, ok) per request."""
    i = offset
    with httpx.Client(base_url=url, timeout=120) as c:
        while time.perf_counter() < stop_at:
            q = QUESTIONS[i % len(QUESTIONS)]
            i += 1
            t0 = time.perf_counter()
            try:
                r = c.post("/api/ask", json={"question": q, "corpus": corpus})
                ok = r.status_code == 200
                if not ok:
                    errors.append(f"{r.status_code}: {r.text[:120]}")
            except httpx.HTTPError as e:
                ok = False
                errors.append(f"{type(e).__name__}: {e}")
            out.append((time.perf_counter() - t0, ok))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def run(url: str, corpus: str, clients: int, seconds: float) -> dict:
    """Run the load and summarize it."""
    results: list[tuple[float, bool]] = []
    errors: list[str] = []
    t0 = time.perf_counter()
    stop_at = t0 + seconds
    threads = [
        threading.Thread(target=client_loop, args=(url, corpus, k, stop_at, results, errors))
        for k in range(clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    ok = [lat for lat, good in results if good]
    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "requests": len(results),
        "ok": len(ok),
        "errors": len(results) - len(ok),
        "error_samples": errors[:5],
        "requests_per_second": round(len(ok) / elapsed, 2),
        "latency_p50_ms": round(1000 * percentile(ok, 0.50), 1),
        "latency_p95_ms": round(1000 * percentile(ok, 0.95), 1),
        "latency_max_ms": round(1000 * max(ok, default=0.0), 1),
        "latency_mean_ms": round(1000 * statistics.fmean(ok), 1) if ok else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--home", type=Path, help="Bifrost home with the corpus built (copy it: requests may write)"
    )
    ap.add_argument("--url", help="Target an already running server instead of starting one")
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    if not args.url and not args.home:
        ap.error("give --home (start a server) or --url (use a running one)")
    facts: dict = {}
    server = None
    url = args.url
    if not url:
        url, server, facts = start_server(args.home, args.corpus)
    report = {
        "url": url,
        "corpus": args.corpus,
        "store": "embedded" if server else "unknown",
        **facts,
        **run(url, args.corpus, args.clients, args.seconds),
    }
    if server is not None:
        server.should_exit = True
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
