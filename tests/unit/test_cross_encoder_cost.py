"""benchmarks/cross_encoder_cost.py: the re-scoring cost of each depth asked for, beside the retrieval
it would follow, on a built home."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import benchmarks.cross_encoder_cost as bench
from tests.conftest import FIXTURES
from tests.unit.mini_corpus import built_mini_home

ROOT = Path(__file__).resolve().parents[2]


def test_every_depth_is_timed_beside_the_retrieval_of_the_same_questions(tmp_path, monkeypatch, capsys):
    home = built_mini_home(tmp_path)
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "cross_encoder_cost",
            "--home",
            str(home),
            "--corpus",
            "mini",
            "--questions",
            str(FIXTURES / "mini" / "questions-mini.jsonl"),
            "--limit",
            "3",
            "--top",
            "3,1",
        ],
    )
    bench.main()
    out = json.loads(capsys.readouterr().out)
    assert out["questions"] == 3 and out["retrieve_p50_ms"] > 0
    assert [r["top"] for r in out["rescore"]] == [1, 3]
    assert all(r["p50_ms"] > 0 and r["p50_ratio_to_retrieve"] > 0 for r in out["rescore"])
