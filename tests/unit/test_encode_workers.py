"""benchmarks/encode_workers.py: both ways of running a long encode are timed on the same texts, in one run,
and their vectors compared."""

from __future__ import annotations

import sys

import benchmarks.encode_workers as bench
from bifrost.core.embeddings import onnx_folder, packaged_model_path
from bifrost.core.onnx_encoder import export_onnx, has_export
from tests.unit.mini_corpus import built_mini_home


def test_both_ways_are_timed_and_give_the_same_vectors(tmp_path, monkeypatch, capsys):
    home = built_mini_home(tmp_path)
    if not has_export(onnx_folder(home), packaged_model_path()):
        export_onnx(packaged_model_path(), onnx_folder(home))
    monkeypatch.setattr(
        sys,
        "argv",
        ["encode_workers", "--home", str(home), "--corpus", "mini", "--limit", "40", "--repeats", "1"],
    )
    bench.main()
    out = capsys.readouterr().out
    assert "provision texts of mini" in out and "workers 1:" in out
    assert out.rstrip().endswith("vectors identical: True")
