"""What the fault tests share: the real `bifrost` CLI as a child process, a SIGKILL at a chosen
point of its run, row counts of a home's SQL tables, and size-limited or read-only folders.

Kill points are observable events of the real run, not hooks in the code: a time after start, a
log line on stderr (the CLI runs with ``-v``), the home's SQLite write-ahead log reaching a size
(the process is writing), or any predicate the test polls (e.g. nodes appearing in Neo4j).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT, subprocess_env

TABLES = (
    "corpora",
    "documents",
    "provisions",
    "references",
    "review_items",
    "graph_nodes",
    "graph_edges",
    "eng_entities",
    "eng_relations",
    "eng_triples",
)


def cli_command(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "bifrost.app.cli.app", "--home", str(home), "-v", *args]


def run_cli(
    home: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """Run one CLI command to its end (real exit code, real stderr)."""
    return subprocess.run(
        cli_command(home, *args),
        env={**subprocess_env(), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    return done


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one `error:` line of a failed command; no traceback, no second line of the error."""
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [
        line
        for line in done.stderr.splitlines()
        if line and not line.startswith(("INFO ", "WARNING ", "Loading weights"))
    ]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, done.stderr[-3000:]
    assert lines[-1] == errors[0], f"lines after the error: {done.stderr[-3000:]}"
    return errors[0]


@dataclass(frozen=True)
class KillPoint:
    """When to SIGKILL the child: ``seconds`` after start, once stderr shows ``line``, once the
    home's WAL holds ``wal_bytes``, or once ``when()`` is true (checked every few milliseconds)."""

    name: str
    seconds: float | None = None
    line: str | None = None
    wal_bytes: int | None = None
    when: Callable[[], bool] | None = None

    def __str__(self) -> str:
        return self.name


def kill_at(
    home: Path, point: KillPoint, *args: str, env: dict[str, str] | None = None, limit: float = 180
) -> str:
    """Start ``bifrost <args>`` on ``home``, SIGKILL it at ``point``; return its stderr so far.
    Fails when the command ends before the point (the kill would prove nothing)."""
    proc = subprocess.Popen(
        cli_command(home, *args),
        env={**subprocess_env(), **(env or {})},
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        for line in proc.stderr:
            lines.append(line)
            if point.line and point.line in line:
                seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wal = home / "bifrost.db-wal"
    start = time.monotonic()
    try:
        while not _reached(point, start, seen, wal):
            if proc.poll() is not None:
                raise AssertionError(
                    f"`{' '.join(args)}` ended (exit {proc.returncode}) before {point}: "
                    f"{''.join(lines)[-2000:]}"
                )
            if time.monotonic() - start > limit:
                raise AssertionError(f"{point} not reached in {limit}s")
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=5)
    return "".join(lines)


def _reached(point: KillPoint, start: float, seen: threading.Event, wal: Path) -> bool:
    if point.seconds is not None and time.monotonic() - start >= point.seconds:
        return True
    if point.line is not None and seen.is_set():
        return True
    if point.wal_bytes is not None and wal.exists() and wal.stat().st_size >= point.wal_bytes:
        return True
    return point.when is not None and point.when()


def sql_counts(home: Path) -> dict[str, int]:
    """Rows per table of the home's SQLite database (opening it recovers a killed writer's WAL)."""
    con = sqlite3.connect(home / "bifrost.db")
    try:
        have = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
        return {t: con.execute(f'select count(*) from "{t}"').fetchone()[0] for t in TABLES if t in have}
    finally:
        con.close()


def graph_stats(home: Path, corpus: str, env: dict[str, str] | None = None, store: str = "embedded") -> dict:
    """`bifrost graph stats --json` of a corpus (the reading path a user takes)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bifrost.app.cli.app",
            "--home",
            str(home),
            "--store",
            store,
            "graph",
            "stats",
            "--corpus",
            corpus,
            "--json",
        ],
        env={**subprocess_env(), **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    ok(done)
    return json.loads(done.stdout)


def copy_home(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of a folder (relative path -> bytes), to prove nothing stored changed."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def is_root() -> bool:
    return os.geteuid() == 0


@contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A size-limited tmpfs mounted at ``folder`` (root only: CI runs as root)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder`` made read-only for real: as root (who ignores permission bits) a read-only bind
    mount over itself; as a normal user, write permission removed from it and everything in it."""
    if is_root():
        subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True)
            yield folder
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=False)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")]}
    for p, mode in modes.items():
        p.chmod(mode & ~0o222)
    try:
        yield folder
    finally:
        for p, mode in modes.items():
            p.chmod(mode)


def free_bytes(folder: Path) -> int:
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize
