"""`bifrost serve` for a team, as a real server: tokens are required off loopback (and the server will not
start without a user to hold one), and 16 clients of mixed roles and corpora under load get every answer
recorded under the right user and corpus, nothing lost. The median latency with and without tokens is printed
(a measurement for docs/results.md, never a pass mark: a shared CI machine's timing is not a property of the
code)."""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.access import LOCAL
from bifrost.core.settings import Settings
from tests.conftest import subprocess_env
from tests.unit.bifrost.app.web.test_workers import Server, cli, free_port
from tests.unit.mini_corpus import MINI, QUESTIONS, build_corpus, write_marked_corpus

SECRET_QUESTIONS = ("When must an anchorage be inspected?", "Who inspects the anchorage before use?")


@pytest.fixture(scope="module")
def team_home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("team")
    bf = Bifrost(Settings(home=root / "home"))
    try:
        build_corpus(bf, "mini", MINI)
        build_corpus(bf, "secret", write_marked_corpus(root))
    finally:
        bf.close()
    return root / "home"


def test_serving_off_loopback_without_a_user_stops_with_one_line_naming_the_setting(tmp_path, team_home):
    home = tmp_path / "home"
    import shutil

    shutil.copytree(team_home, home)
    done = subprocess.run(
        cli(home, "serve", "--host", "0.0.0.0", "--port", str(free_port()), "--no-warm"),
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    lines = [ln for ln in done.stderr.splitlines() if ln.strip() and not ln.startswith("serving on http")]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "BIFROST_AUTH" in lines[0] and "bifrost users add" in lines[0]


def test_serving_off_loopback_requires_a_token(tmp_path, team_home):
    import shutil

    home = tmp_path / "home"
    shutil.copytree(team_home, home)
    bf = Bifrost(Settings(home=home))
    token = bf.users.add("rita", "reader", ["mini"]).secret
    bf.close()
    server = Server(home, 1, None, host="0.0.0.0", args=("--no-warm",))
    try:
        ask = {"question": QUESTIONS[0], "corpus": "mini"}
        assert httpx.post(f"{server.base}/api/ask", json=ask, timeout=60).status_code == 401
        r = httpx.post(
            f"{server.base}/api/ask", json=ask, headers={"Authorization": f"Bearer {token}"}, timeout=120
        )
        assert r.status_code == 200 and r.json()["record_id"]
    finally:
        server.stop()
    assert token not in server.log.read_text()


# --- load: 16 clients, mixed roles and corpora ---
ROLES = ("reader", "reviewer", "admin")
SCOPES = (("mini",), ("secret",), ("mini", "secret"))


def load_seconds() -> float:
    return float(os.environ.get("BIFROST_LOAD_SECONDS", "30"))


class Client(threading.Thread):
    """One user asking in a loop until ``stop``: each answer's record id kept with who asked what; now and
    then a corpus outside the token's scope, which must be refused."""

    def __init__(
        self,
        base: str,
        user: str | None,
        token: str | None,
        scope: tuple[str, ...],
        seed: int,
        stop: threading.Event,
        phase: list[str],
    ) -> None:
        super().__init__(daemon=True)
        self.base, self.user, self.token, self.scope = base, user, token, scope
        self.rng = random.Random(seed)
        self.stop_event, self.phase = stop, phase
        self.acked: list[tuple[str, str, str]] = []  # (record id, user, corpus)
        self.latencies: list[float] = []
        self.refused = 0
        self.errors: list[str] = []

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        with httpx.Client(base_url=self.base, headers=headers, timeout=120) as http:
            while not self.stop_event.is_set():
                if self.phase[0] == "pause":
                    time.sleep(0.05)
                    continue
                outside = [c for c in ("mini", "secret") if c not in self.scope]
                if self.token and outside and self.rng.random() < 0.1:
                    r = http.post("/api/ask", json={"question": QUESTIONS[0], "corpus": outside[0]})
                    self.refused += r.status_code == 403
                    if r.status_code != 403:
                        self.errors.append(f"outside scope: {r.status_code}")
                    continue
                corpus = self.rng.choice(self.scope)
                question = self.rng.choice(QUESTIONS if corpus == "mini" else SECRET_QUESTIONS)
                t0 = time.perf_counter()
                r = http.post("/api/ask", json={"question": question, "corpus": corpus})
                elapsed = time.perf_counter() - t0
                if r.status_code != 200:
                    self.errors.append(f"{r.status_code}: {r.text[:200]}")
                    continue
                body = r.json()
                if not body.get("record_id") or body.get("warnings"):
                    self.errors.append(f"not recorded: {body.get('warnings')}")
                    continue
                self.latencies.append(elapsed)
                self.acked.append((body["record_id"], self.user or "local", corpus))


def run_load(
    base: str, users: list[tuple[str | None, str | None, tuple[str, ...]]], seconds: float, seed: int
) -> list[Client]:
    stop, phase = threading.Event(), ["run"]
    clients = [Client(base, u, t, s, seed + i, stop, phase) for i, (u, t, s) in enumerate(users)]
    for c in clients:
        c.start()
    time.sleep(seconds)
    stop.set()
    for c in clients:
        c.join(180)
        assert not c.is_alive(), "a client did not finish within its bound"
    return clients


@pytest.mark.slow
def test_sixteen_clients_of_mixed_roles_and_corpora_under_load(tmp_path, team_home):
    import shutil

    home = tmp_path / "home"
    shutil.copytree(team_home, home)
    bf = Bifrost(Settings(home=home))
    team = []
    for i in range(16):
        role, scope = ROLES[i % 3], SCOPES[(i // 3) % 3]
        team.append((f"user{i:02d}", bf.users.add(f"user{i:02d}", role, list(scope)).secret, scope))
    bf.close()
    # the shared limiter runs on every request, and never refuses
    env = {"BIFROST_RATE_LIMIT": "100000/minute"}
    secured = Server(home, 2, None, {**env, "BIFROST_AUTH": "tokens"}, name="secured")
    open_ = Server(home, 2, None, {**env, "BIFROST_AUTH": "off"}, name="open")
    total = load_seconds()
    rounds = 4
    with_auth: list[Client] = []
    without: list[Client] = []
    try:
        for k in range(rounds):  # alternate, so that the machine's drift falls on both alike
            without += run_load(
                open_.base, [(None, None, s) for _, _, s in team], total / rounds / 2, seed=1000 * k
            )
            with_auth += run_load(secured.base, team, total / rounds, seed=1000 * k + 500)
    finally:
        secured.stop()
        open_.stop()
    errors = [e for c in with_auth + without for e in c.errors]
    assert not errors, errors[:5]
    assert sum(c.refused for c in with_auth) > 0  # out-of-scope asks happened and were refused
    bf = Bifrost(Settings(home=home))
    try:
        acked = [a for c in with_auth for a in c.acked]
        assert len(acked) >= 16
        for record_id, user, corpus in acked:  # every acknowledged answer is on the record, under its asker
            rec = bf.answer_log.get(record_id, LOCAL)
            assert (rec.user, rec.corpus) == (user, corpus), record_id
        stored = Counter(r.user for r in bf.answer_log.list(LOCAL, limit=1_000_000))
        # none lost, none extra
        assert {u: n for u, n in stored.items() if u != "local"} == Counter(u for _, u, _ in acked)
        assert stored["local"] == sum(len(c.acked) for c in without)
    finally:
        bf.close()
    p50_auth = statistics.median([t for c in with_auth for t in c.latencies])
    p50_open = statistics.median([t for c in without for t in c.latencies])
    print(
        f"load: {len(acked)} answers with tokens, p50 {p50_auth * 1000:.0f} ms; without "
        f"{p50_open * 1000:.0f} ms; "
        f"ratio {p50_auth / p50_open:.2f}"
    )
