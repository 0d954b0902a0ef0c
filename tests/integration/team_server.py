"""A real `bifrost serve` for the team-server tests: its own process group, up once /api/health answers."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx

from tests.conftest import subprocess_env
from tests.unit.bifrost.app.web.test_workers import cli, free_port


class TeamServer:
    def __init__(self, home: Path, *args: str, env: dict[str, str] | None = None, host: str = "127.0.0.1",
                 name: str = "serve") -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = home.parent / f"{name}-{self.port}.log"
        cmd = cli(home, "serve", "--host", host, "--port", str(self.port), *args)
        self.proc = subprocess.Popen(cmd, env={**subprocess_env(), **(env or {})}, stdout=self.log.open("w"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.base}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.kill()
        raise AssertionError(f"server not up: {self.log.read_text()[-2000:]}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """The whole process group (the parent and every worker) at once."""
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.kill(signal.SIGTERM)
