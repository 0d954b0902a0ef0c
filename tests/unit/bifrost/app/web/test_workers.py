"""`bifrost serve --workers N`: real servers (subprocess, real HTTP) over the mini corpus home.

Four forked workers answer exactly as one process does, requests are spread over more than one
worker process, and a bad worker count is a one-line error."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from bifrost.app.web.workers import threads_per_worker
from tests.conftest import ROOT, subprocess_env
from tests.unit.mini_corpus import QUESTIONS, built_mini_home

ENV = subprocess_env()


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return built_mini_home(tmp_path_factory.mktemp("workers"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "bifrost.app.cli.app", "--home", str(home), *args]


class Server:
    """`bifrost serve` in its own process group, up once /api/health answers; ``corpus`` None serves every
    corpus, ``host`` is the address it binds (it is reached on loopback), ``args`` go to `serve` as they
    are."""

    def __init__(
        self,
        home: Path,
        workers: int = 1,
        corpus: str | None = "mini",
        env: dict[str, str] | None = None,
        *,
        host: str = "127.0.0.1",
        args: tuple[str, ...] = (),
        name: str = "serve",
    ) -> None:
        self.port = free_port()
        self.corpus = corpus
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = home.parent / f"{name}-{workers}-{self.port}.log"
        which = ("--corpus", corpus) if corpus else ()
        cmd = cli(
            home, "serve", "--host", host, "--port", str(self.port), *which, "--workers", str(workers), *args
        )
        self.proc = subprocess.Popen(
            cmd,
            env={**ENV, **(env or {})},
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"server exited: {self.log.read_text()[-2000:]}"
            try:
                if httpx.get(f"{self.base}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise AssertionError(f"server not up: {self.log.read_text()[-2000:]}")

    def ask(self, question: str) -> tuple[dict, str]:
        r = httpx.post(
            f"{self.base}/api/ask", json={"question": question, "corpus": self.corpus}, timeout=120
        )
        assert r.status_code == 200, r.text
        return r.json(), r.headers["x-bifrost-worker"]

    def kill(self) -> None:
        """SIGKILL to the whole process group (the parent and every worker) at once, requests in flight."""
        try:
            os.killpg(self.proc.pid, 9)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        """SIGTERM to the parent only: it stops its workers; none is left behind."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)
                raise AssertionError(
                    f"server did not stop on SIGTERM: {self.log.read_text()[-2000:]}"
                ) from None
        deadline = time.monotonic() + 10
        while group_alive(self.proc.pid):
            if time.monotonic() > deadline:
                os.killpg(self.proc.pid, 9)
                raise AssertionError("a worker outlived the server's parent process")
            time.sleep(0.2)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def essence(answer: dict) -> dict:
    """What must not depend on the process that answered: the text, statements, citations, ranking."""
    return {
        "text": answer["text"],
        "refused": answer["refused"],
        "statements": answer["statements"],
        "citations": answer["citations"],
        "retrieved": [item["id"] for item in answer["retrieved"]],
    }


def one_worker_answers(
    home: Path, corpus: str = "mini", env: dict[str, str] | None = None
) -> dict[str, dict]:
    server = Server(home, 1, corpus, env)
    try:
        return {q: essence(server.ask(q)[0]) for q in QUESTIONS}
    finally:
        server.stop()


def check_four_workers_answer_as_one(
    home: Path, corpus: str = "mini", env: dict[str, str] | None = None
) -> None:
    """Four workers give one worker's answers to every question, asked concurrently, from more than
    one worker process, and none from the parent (it only loads and forks)."""
    expected = one_worker_answers(home, corpus, env)
    assert any(a["statements"] for a in expected.values())  # the comparison is not empty vs empty
    server = Server(home, 4, corpus, env)
    questions = [q for _ in range(4) for q in QUESTIONS]
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(server.ask, questions))
        health = httpx.get(f"{server.base}/api/health", timeout=10)
    finally:
        server.stop()
    for question, (answer, _) in zip(questions, results):
        assert essence(answer) == expected[question], question
    pids = {pid for _, pid in results}
    assert len(pids) > 1, f"every request went to worker {pids}"
    assert str(server.proc.pid) not in pids
    assert health.status_code == 200 and health.json()["store_reachable"]


def test_four_workers_answer_as_one_worker_does_and_share_the_load(home):
    check_four_workers_answer_as_one(home)


@pytest.mark.parametrize("value", ["0", "-2"])
def test_a_worker_count_below_one_is_a_one_line_error(home, value):
    done = subprocess.run(
        cli(home, "serve", "--port", str(free_port()), "--workers", value),
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines == [f"error: --workers must be 1 or more (got {value})"], done.stderr


def test_each_worker_gets_its_share_of_the_cpus_for_torch():
    assert threads_per_worker(4, None, cpus=2) == 1
    assert threads_per_worker(2, None, cpus=8) == 4
    assert threads_per_worker(2, 1, cpus=8) == 1  # the configured count when it fits
    assert threads_per_worker(2, 16, cpus=8) == 4  # never more than this worker's share
