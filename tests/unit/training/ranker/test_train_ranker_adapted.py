"""`bifrost train ranker --encoder-questions` on the mini corpus: the ranker reads an encoder adapted to
the questions, stored beside it and named on its card; without that encoder the hybrid answers."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.retrieval.ranking.hybrid import HybridRetriever
from bifrost.retrieval.ranking.ltr.model import encoder_folder, model_paths, ranker_encoder
from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever
from tests.conftest import FIXTURES, import_or_skip
from tests.unit.mini_corpus import built_mini_home

import_or_skip("lightgbm", "ltr")
QUESTIONS = FIXTURES / "mini" / "questions-mini.jsonl"


@pytest.fixture(scope="module")
def adapted_home(tmp_path_factory):
    home = built_mini_home(tmp_path_factory.mktemp("ltr-adapted"))
    r = CliRunner().invoke(
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
            "--encoder-questions",
            str(QUESTIONS),
            "--folds",
            "2",
            "--no-ablations",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    return home, json.loads(r.stdout)


def test_the_report_adds_the_adapted_baselines_beside_the_embedding_models(adapted_home):
    _home, report = adapted_home
    assert {"bm25", "dense", "rrf", "dense-adapted", "rrf-adapted", "bifrost-ltr"} <= set(report["systems"])
    assert all(s["recall@10"]["n"] == 10 for s in report["systems"].values())


def test_the_card_names_the_stored_encoder_and_the_question_set_it_learned(adapted_home):
    home, _ = adapted_home
    settings = Settings(home=home)
    card = json.loads(model_paths(settings, "mini")[1].read_text())
    assert card["encoder"] == "models/dense-mini" and card["encoder_version"]
    assert [q["path"] for q in card["encoder_questions"]] == [str(QUESTIONS)]
    assert ranker_encoder(settings, "mini") == encoder_folder(settings, "mini")


def test_ask_ranks_with_the_adapted_encoder_and_refuses_by_the_embedding_model(adapted_home):
    home, _ = adapted_home
    bf = Bifrost(Settings(home=home))
    try:
        retriever = bf.retriever("mini")
        assert isinstance(retriever, LtrRetriever) and retriever.channels.ranking_dense is not None
        ev = retriever.channels.gather("Who prepares the fall protection plan?", bf.retrieval_config)
        assert ev.cosine is not None and ev.relevance == pytest.approx(float(ev.cosine.max()))
        assert bf.ask("Who prepares the fall protection plan?", "mini").citations
    finally:
        bf.close()


def test_without_its_encoder_the_ranker_is_set_aside_for_the_hybrid(adapted_home, tmp_path, caplog):
    home, _ = adapted_home
    settings = Settings(home=home)
    folder = encoder_folder(settings, "mini")
    shutil.move(str(folder), str(tmp_path / "moved"))
    try:
        bf = Bifrost(settings)
        try:
            assert isinstance(bf.retriever("mini"), HybridRetriever)
        finally:
            bf.close()
        assert "adapted encoder" in caplog.text
    finally:
        shutil.move(str(tmp_path / "moved"), str(folder))


def test_a_study_with_no_store_trains_only_the_fold_encoders_and_stores_nothing(tmp_path):
    home = built_mini_home(tmp_path)
    r = CliRunner().invoke(
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
            "--encoder-questions",
            str(QUESTIONS),
            "--folds",
            "2",
            "--no-ablations",
            "--no-store",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "dense-adapted" in json.loads(r.stdout)["systems"]
    settings = Settings(home=home)
    assert not encoder_folder(settings, "mini").exists()
    assert not any(p.exists() for p in model_paths(settings, "mini"))


def test_storing_an_encoder_deletes_the_corpus_embeddings_of_the_one_it_replaces(adapted_home):
    home, _ = adapted_home
    index = home / "index" / "mini"
    current = sorted(p.name for p in index.glob("dense-dense-mini-*"))
    stale = index / "dense-dense-mini-0badc0de-fingerprint.npy"
    stale.write_bytes(b"an earlier encoder's corpus matrix")
    r = CliRunner().invoke(
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
            "--encoder-questions",
            str(QUESTIONS),
            "--no-cv",
        ],
    )
    assert r.exit_code == 0, r.output
    assert (
        not stale.exists() and current and sorted(p.name for p in index.glob("dense-dense-mini-*")) == current
    )
