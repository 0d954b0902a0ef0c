"""Cold start of `bifrost ask` and memory of `bifrost serve`, for one or more code trees in the same run.

For each repetition and each code tree (``--code``, a checkout whose packages go first on PYTHONPATH), runs
``bifrost --help`` and then ``bifrost --home H ask --corpus C QUESTION --json`` as new processes and times
them (wall clock); with ``--novel Q``, also an ask of Q with the extraction journal as it was before the timed
runs (Q is parsed anew each time, as a question never asked before). The runs are interleaved so that
background load hits every tree alike. Reports medians, the ask/help ratio of each tree, and whether every
tree gave the same retrieved ids and citations (five OSHA questions, or --question). With ``--serve``, starts
``bifrost serve`` over the home for each tree, waits for /api/health (the server warms up the corpus first),
answers one question through ``POST /api/ask`` and reads the server's peak RSS (VmHWM) from /proc.

Use a copy of a built home (the first run of new code writes its index files there):

    cp -a .bifrost-demo /tmp/start-home
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 python -m benchmarks.start_bench --home /tmp/start-home \\
        --code /path/to/main --code . --repeats 7 --serve
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.code_tree import tree_env

import httpx

QUESTION = "How to protect excavation work from rainstorm hazard?"
QUESTIONS = (
    QUESTION,
    "Can a warning line plus a personal fall arrest system be used for all leading-edge work?",
    "What are the requirements for guardrail systems on scaffolds?",
    "When must a competent person inspect an excavation?",
    "How far from the edge of an excavation must spoil piles be kept?",
)


def env_for(code: Path) -> dict[str, str]:
    return {**tree_env(code), "BIFROST_CODE_TREE": str(code.resolve())}


def cli(python: str, *args: str) -> list[str]:
    return [python, "-m", "bifrost.app.cli.app", *args]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall-clock seconds of one process and its stdout (exits on failure, with stderr); it runs in
    the code tree's folder, since ``python -m`` puts the working folder first on sys.path."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=env["BIFROST_CODE_TREE"])
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds, done.stdout


def answer_key(stdout: str) -> dict:
    """What must not change between code trees: retrieved ids in order, cited ids, refusal."""
    a = json.loads(stdout)
    return {
        "retrieved": [it["id"] for it in a["retrieved"]],
        "citations": [c["id"] for c in a["citations"]],
        "refused": a["refused"],
    }


class Journal:
    """The home's extraction journal as it was before the timed runs, put back around each ``--novel`` ask
    (so that question is parsed anew every time, as a question never asked before is)."""

    def __init__(self, home: Path) -> None:
        self.path = home / "extraction_journal.db"
        self.saved = self.path.read_bytes() if self.path.is_file() else None

    def restore(self) -> None:
        if self.saved is None:
            self.path.unlink(missing_ok=True)
        else:
            self.path.write_bytes(self.saved)


def bench_start(
    python: str,
    codes: list[Path],
    home: Path,
    corpus: str,
    question: str,
    repeats: int,
    questions: tuple[str, ...] = (),
    novel: str | None = None,
) -> dict:
    ask = cli(python, "--home", str(home.resolve()), "ask", "--corpus", corpus, question, "--json")
    times: dict[str, dict[str, list[float]]] = {str(c): {"help": [], "ask": [], "novel": []} for c in codes}
    keys: dict[str, dict] = {}
    answers: dict[str, list[dict]] = {}
    # untimed: every question once (index files are written on the first start of new code)
    for code in codes:
        answers[str(code)] = [
            answer_key(timed(ask[:-2] + [q, "--json"], env_for(code))[1]) for q in questions
        ]
        keys[str(code)] = answer_key(timed(ask, env_for(code))[1])
    journal = Journal(home) if novel else None  # after the untimed runs: QUESTION stays journaled
    for _ in range(repeats):
        for code in codes:
            env = env_for(code)
            times[str(code)]["help"].append(timed(cli(python, "--help"), env)[0])
            seconds, out = timed(ask, env)
            times[str(code)]["ask"].append(seconds)
            if answer_key(out) != keys[str(code)]:
                raise SystemExit(f"{code}: the answer changed between runs")
            if journal is not None and novel is not None:
                journal.restore()
                times[str(code)]["novel"].append(timed(ask[:-2] + [novel, "--json"], env)[0])
                journal.restore()
    report: dict = {}
    for code, t in times.items():
        h, a = statistics.median(t["help"]), statistics.median(t["ask"])
        imported = timed([python, "-c", "import bifrost; print(bifrost.__file__)"], env_for(Path(code)))[
            1
        ].strip()
        report[code] = {
            "imports": imported,
            "help_median_s": round(h, 2),
            "ask_median_s": round(a, 2),
            "ask_over_help": round(a / h, 1),
            "ask_s": [round(x, 2) for x in t["ask"]],
            "help_s": [round(x, 2) for x in t["help"]],
        }
        if t["novel"]:
            n = statistics.median(t["novel"])
            report[code].update(
                novel_median_s=round(n, 2),
                novel_over_help=round(n / h, 1),
                novel_s=[round(x, 2) for x in t["novel"]],
            )
    first = next(iter(answers.values()))
    report["questions_checked"] = len(questions)
    report["same_ranked_ids_and_citations_in_every_tree"] = all(a == first for a in answers.values())
    return report


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vm_kb(pid: int, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def burst(base: str, corpus: str, clients: int, rounds: int = 3) -> int:
    """``clients`` threads each asking ``rounds`` questions at once (as a busy server sees); the error
    count."""
    errors = []

    def one(i: int) -> None:
        with httpx.Client(timeout=300) as c:
            for r in range(rounds):
                q = QUESTIONS[(i + r) % len(QUESTIONS)]
                if c.post(base + "/api/ask", json={"question": q, "corpus": corpus}).status_code != 200:
                    errors.append(q)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(errors)


def bench_serve(
    python: str, code: Path, home: Path, corpus: str, question: str, clients: int = 0, timeout: float = 600
) -> dict:
    """Start `bifrost serve`, answer one question, read VmHWM / VmRSS; with ``clients``, then a burst
    of concurrent questions and VmHWM again; stop the server."""
    port = free_port()
    cmd = cli(python, "--home", str(home.resolve()), "serve", "--port", str(port), "--corpus", corpus)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env=env_for(code),
        cwd=code.resolve(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"{code}: bifrost serve exited {proc.returncode}")
            if time.perf_counter() - t0 > timeout:
                raise SystemExit(f"{code}: bifrost serve did not answer within {timeout:.0f} s")
            try:
                if httpx.get(base + "/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        ready = time.perf_counter() - t0
        r = httpx.post(base + "/api/ask", json={"question": question, "corpus": corpus}, timeout=120)
        r.raise_for_status()
        hwm, rss = vm_kb(proc.pid, "VmHWM"), vm_kb(proc.pid, "VmRSS")
        out = {
            "ready_s": round(ready, 1),
            "peak_rss_mb": round((hwm or 0) / 1024),
            "rss_after_answer_mb": round((rss or 0) / 1024),
            "cited": [c["id"] for c in r.json().get("citations", [])],
        }
        if clients:
            out["clients"], out["errors"] = clients, burst(base, corpus, clients)
            out["peak_rss_after_burst_mb"] = round((vm_kb(proc.pid, "VmHWM") or 0) / 1024)
        return out
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--home", type=Path, required=True, help="a COPY of a built home (index files get written there)"
    )
    ap.add_argument(
        "--code", type=Path, action="append", help="code tree to measure (repeatable; default: this checkout)"
    )
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--novel",
        metavar="QUESTION",
        help="also time this question as never asked before: the home's "
        "extraction journal is put back as it was before the run around each ask (the question must not be "
        "in it)",
    )
    ap.add_argument("--serve", action="store_true", help="also measure the peak RSS of `bifrost serve`")
    ap.add_argument(
        "--clients", type=int, default=0, help="with --serve: then N concurrent clients, 3 questions each"
    )
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    codes = [c.resolve() for c in args.code] if args.code else [Path(__file__).resolve().parents[1]]
    load_before = os.getloadavg()[0]
    report: dict = {
        "command": " ".join(sys.argv),
        "cpus": os.cpu_count(),
        "load_average_before": round(load_before, 2),
        "start": bench_start(
            args.python,
            codes,
            args.home,
            args.corpus,
            args.question,
            args.repeats,
            QUESTIONS if args.corpus == "osha-1926" else (args.question,),
            args.novel,
        ),
    }
    if args.serve:
        report["serve"] = {
            str(c): bench_serve(args.python, c, args.home, args.corpus, args.question, args.clients)
            for c in codes
        }
    report["load_average_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
