"""`bifrost train reader` end to end on the mini corpus: each set scored by a ranker and a reader fitted on
the other set, the stored reader behind the stored ranker, `ask` reading with it, and a retrained ranker
setting it aside with one warning."""

from __future__ import annotations

import json
import logging

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.retrieval.ranking.ltr.model import model_paths, ranker_sha256
from bifrost.retrieval.reader.model import ReaderCard, reader_folder
from tests.conftest import FIXTURES, import_or_skip
from tests.unit.mini_corpus import built_mini_home

import_or_skip("lightgbm", "ltr")
QUESTIONS = FIXTURES / "mini" / "questions-mini.jsonl"


@pytest.fixture(scope="module")
def read_home(tmp_path_factory):
    home = built_mini_home(tmp_path_factory.mktemp("reader"))
    lines = QUESTIONS.read_text().splitlines()
    halves = [home / "set-a.jsonl", home / "set-b.jsonl"]
    halves[0].write_text("\n".join(lines[::2]) + "\n")
    halves[1].write_text("\n".join(lines[1::2]) + "\n")
    runner = CliRunner()
    r = runner.invoke(
        app,
        [
            "--home",
            str(home),
            "train",
            "ranker",
            "--corpus",
            "mini",
            "-q",
            str(QUESTIONS),
            "--folds",
            "2",
            "--no-ablations",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        [
            "--home",
            str(home),
            "train",
            "reader",
            "--corpus",
            "mini",
            "-q",
            str(halves[0]),
            "-q",
            str(halves[1]),
            "--epochs",
            "1",
            "--layers",
            "1",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    return home, json.loads(r.stdout)


def test_each_set_is_scored_by_a_reader_that_never_saw_it_beside_the_default_and_rrf(read_home):
    home, report = read_home
    assert set(report["cuts_by_set"]) == {"set-a", "set-b"}
    for name in ("set-a", "set-b"):
        systems = report["left_out"][name]["systems"]
        assert set(systems) == {"reader", "default plan", "rrf"} and 0 <= systems["reader"]["f1"] <= 1
    assert report["worst_left_out"] in ("set-a", "set-b")


def test_the_stored_reader_records_the_ranker_it_was_trained_behind_and_ask_reads_with_it(read_home):
    home, report = read_home
    settings = Settings(home=home, retrieval={"reader": "auto"})
    card = ReaderCard.read(reader_folder(home, "mini"))
    assert card.ranker_sha256 == ranker_sha256(settings, "mini") and card.cuts == report["cuts"]
    bf = Bifrost(settings)
    try:
        assert bf.pipeline.reader("mini") is not None
        answer = bf.ask("Who must prepare the fall protection plan?", "mini")
        assert answer.outcome.value in ("answered", "not_stated") and answer.statements
    finally:
        bf.close()


def test_a_ranker_retrained_since_sets_the_reader_aside_with_one_warning(read_home, caplog, tmp_path):
    home, _ = read_home
    settings = Settings(home=home, retrieval={"reader": "auto"})
    model_path = model_paths(settings, "mini")[0]
    saved = model_path.read_text()
    try:
        model_path.write_text(saved + "\n")  # another ranker file: the reader's cuts were read on the old one
        bf = Bifrost(settings)
        with caplog.at_level(logging.WARNING):
            assert bf.pipeline.reader("mini") is None
            answer = bf.ask("Who must prepare the fall protection plan?", "mini")
        bf.close()
        assert answer.statements
        assert sum("reader of mini is not used" in r.getMessage() for r in caplog.records) == 1
    finally:
        model_path.write_text(saved)


def test_training_a_reader_without_the_experiments_extra_is_one_line_naming_it(monkeypatch, tmp_path):
    import pytest

    from bifrost.core import extras
    from bifrost.core.errors import MissingExtraError
    from bifrost.core.settings import Settings
    from bifrost.training.reader.run import train_reader

    monkeypatch.setattr(extras, "has_module", lambda name: name not in ("onnxruntime", "onnx"))
    with pytest.raises(MissingExtraError) as err:
        train_reader(Settings(home=tmp_path), "osha-1926", [])
    assert "experiments" in str(err.value) and "\n" not in str(err.value)
