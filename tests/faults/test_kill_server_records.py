"""A real SIGKILL of `bifrost serve --workers 2` (the parent and both workers) in the middle of a burst of
answers: every answer the server acknowledged is on the record afterwards, under its asker, and the home
serves again."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.access import LOCAL
from bifrost.core.settings import Settings
from tests.unit.bifrost.app.web.test_workers import Server
from tests.unit.mini_corpus import QUESTIONS, built_mini_home

pytestmark = [pytest.mark.faults, pytest.mark.timeout(600)]


def test_a_kill_during_a_burst_loses_no_acknowledged_record(tmp_path: Path):
    home = built_mini_home(tmp_path)
    bf = Bifrost(Settings(home=home))
    tokens = {f"u{i}": bf.users.add(f"u{i}", "reader", ["mini"]).secret for i in range(8)}
    bf.close()
    server = Server(home, 2, None, {"BIFROST_AUTH": "tokens"})
    acked: list[tuple[str, str]] = []
    lock = threading.Lock()
    killed = threading.Event()

    def client(user: str, token: str) -> None:
        with httpx.Client(
            base_url=server.base, headers={"Authorization": f"Bearer {token}"}, timeout=30
        ) as http:
            i = 0
            while not killed.is_set():
                try:
                    r = http.post(
                        "/api/ask", json={"question": QUESTIONS[i % len(QUESTIONS)], "corpus": "mini"}
                    )
                except httpx.HTTPError:
                    return  # the server is gone: this answer was never acknowledged
                i += 1
                if r.status_code == 200:
                    with lock:
                        acked.append((r.json()["record_id"], user))

    threads = [threading.Thread(target=client, args=item, daemon=True) for item in tokens.items()]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 120
    while len(acked) < 40 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()  # SIGKILL to the whole group, requests in flight
    killed.set()
    for t in threads:
        t.join(60)
    with lock:
        seen = list(acked)
    assert len(seen) >= 40
    bf = Bifrost(Settings(home=home))
    try:
        for record_id, user in seen:
            assert bf.answer_log.get(record_id, LOCAL).user == user
    finally:
        bf.close()
    again = Server(home, 1, None, {"BIFROST_AUTH": "tokens"}, args=("--no-warm",))
    try:
        r = httpx.post(
            f"{again.base}/api/ask",
            json={"question": QUESTIONS[0], "corpus": "mini"},
            headers={"Authorization": f"Bearer {tokens['u0']}"},
            timeout=120,
        )
        assert r.status_code == 200 and r.json()["record_id"]
    finally:
        again.stop()
