"""Index files are written whole or not at all: a failed write leaves the old file (or none) and
no temporary file behind."""

from __future__ import annotations

import numpy as np
import pytest

from bifrost.core.atomic_files import atomic_file, atomic_folder, save_npy, write_json


def test_save_npy_round_trips_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "sub" / "m.npy"
    save_npy(path, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert np.array_equal(np.load(path, mmap_mode="r"), np.arange(6, dtype=np.float32).reshape(2, 3))
    assert sorted(p.name for p in path.parent.iterdir()) == ["m.npy"]


def test_a_failed_write_keeps_the_previous_file(tmp_path):
    path = tmp_path / "rows.json"
    write_json(path, {"v": 1})
    with pytest.raises(RuntimeError):
        with atomic_file(path) as tmp:
            tmp.write_text('{"v": 2, "half')
            raise RuntimeError("killed mid-write")
    assert path.read_text() == '{"v": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["rows.json"]


def test_a_folder_replaces_the_old_one_in_one_step_or_not_at_all(tmp_path):
    target = tmp_path / "bm25"
    with atomic_folder(target) as tmp:
        (tmp / "a").write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_folder(target) as tmp:
            (tmp / "a").write_text("new, half")
            raise RuntimeError("killed mid-write")
    assert (target / "a").read_text() == "old"
    with atomic_folder(target) as tmp:
        (tmp / "a").write_text("new")
    assert (target / "a").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["bm25"]
