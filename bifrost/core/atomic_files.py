"""Files written whole or not at all: each writer fills a temporary file (or folder) beside the
target and renames it into place, so a reader or a killed build never sees a half-written index."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def atomic_file(path: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; after the block it is flushed and renamed to ``path``
    (on error the temporary file is removed and ``path`` is untouched)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp_path, path)
        _fsync_dir(path.parent)
    finally:
        tmp_path.unlink(missing_ok=True)


def save_npy(path: Path, array: np.ndarray) -> None:
    """``np.save`` to ``path``, atomically."""
    with atomic_file(path) as tmp, open(tmp, "wb") as f:
        np.save(f, np.ascontiguousarray(array))


def write_json(path: Path, data: Any) -> None:
    """JSON to ``path``, atomically."""
    with atomic_file(path) as tmp:
        tmp.write_text(json.dumps(data, ensure_ascii=False))


@contextmanager
def atomic_folder(path: Path) -> Iterator[Path]:
    """Yield a temporary folder beside ``path``; after the block it replaces ``path`` in one rename
    (an older folder of that name is moved aside first and then deleted)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        old = None
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent))
            os.replace(path, old / "x")
        os.replace(tmp, path)
        _fsync_dir(path.parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
