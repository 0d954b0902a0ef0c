"""Ingest 29 CFR 1926 into a fresh home, run bm25 on the first 20 dev questions, check the outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.eval.runner import run_eval
from tests.conftest import skip_or_fail


@pytest.mark.slow
def test_bm25_on_first_20_loi_dev_questions(shared_dir: Path, home: Path, tmp_path: Path):
    questions = shared_dir / "eval/osha-loi-dev.jsonl"
    if not questions.is_file():
        skip_or_fail(f"osha-loi-dev.jsonl not in the shared folder {shared_dir}")
    settings = Settings(home=home, shared_dir=shared_dir)
    bf = Bifrost(settings)
    try:
        assert bf.ingest("osha-1926").files_ok
    finally:
        bf.close()
    out = tmp_path / "run"
    res = run_eval("osha-1926", questions, "bm25,llm-only", out, settings, limit=20)
    for f in ("metrics.json", "per_question.jsonl", "report.md", "recall_at_k.png", "by_group.png"):
        assert (out / f).is_file(), f
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["meta"]["questions"]["n_run"] == 20 and "llm-only" in res.skipped
    metrics = doc["systems"]["bm25"]["metrics"]
    for name, ci in metrics.items():
        if name != "seconds":
            assert 0.0 <= ci["low"] <= ci["mean"] <= ci["high"] <= 1.0, name
    assert metrics["recall@20"]["mean"] > 0.1  # lexical search finds some of the letters' provisions
    assert len((out / "per_question.jsonl").read_text().splitlines()) == 20
