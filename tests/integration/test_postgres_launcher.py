"""The dev PostgreSQL launcher starts a real server on a chosen port (as root: as the postgres user;
also as an unprivileged user), prints a URL Bifrost opens, says so when already running, and stops."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.postgres
START, STOP = (
    ROOT / "docker" / "postgres-launcher" / "start.sh",
    ROOT / "docker" / "postgres-launcher" / "stop.sh",
)


def _binaries() -> None:
    if not glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"):
        msg = "PostgreSQL server binaries missing (apt-get install postgresql)"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


USERS = [
    "me",
    pytest.param("nobody", marks=pytest.mark.skipif(os.geteuid() != 0, reason="needs root to switch user")),
]


@pytest.mark.parametrize("user", USERS)
def test_start_prints_a_working_url_and_stop_stops_it(user):
    _binaries()
    folder = tempfile.mkdtemp(prefix="bifrost-pg-launcher-", dir="/var/tmp")
    os.chmod(folder, 0o755)  # the server's user (postgres, or nobody) must reach the runtime folder
    if user == "nobody":
        shutil.chown(folder, "nobody")
    port = _free_port()
    env = {
        **os.environ,
        "BIFROST_PG_PORT": str(port),
        "BIFROST_PG_RUN": f"{folder}/run",
        "BIFROST_PG_DB": "launched",
    }
    prefix = ["runuser", "-u", "nobody", "--"] if user == "nobody" else []
    run = lambda script: subprocess.run(
        [*prefix, "bash", str(script)],
        capture_output=True,
        text=True,  # noqa: E731
        timeout=120,
        env=env,
        check=False,
    )
    try:
        first = run(START)
        assert first.returncode == 0, first.stderr
        url = first.stdout.strip().splitlines()[-1].removeprefix("export BIFROST_TEST_PG_URL=")
        assert url.startswith("postgresql+psycopg://bifrost:") and url.endswith(f"@127.0.0.1:{port}/launched")
        again = run(START)
        assert again.returncode == 0 and "already running" in again.stdout

        from bifrost.core.store.sql_store import SqlStore

        store = SqlStore(url)
        store.ensure_corpus("launched", "us-cfr")
        assert store.corpora() == ["launched"]
        store.dispose()
    finally:
        stopped = run(STOP)
        shutil.rmtree(folder, ignore_errors=True)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0  # nothing listens any more
