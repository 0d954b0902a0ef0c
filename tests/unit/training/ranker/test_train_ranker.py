"""`bifrost train ranker` end to end on the mini corpus: cross-validated report, a stored model that
`ask` then uses, and the hybrid again when the model file is corrupt."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.retrieval.ranking.hybrid import HybridRetriever
from bifrost.retrieval.ranking.ltr.model import model_paths
from bifrost.retrieval.ranking.ltr.retriever import LtrRetriever
from tests.conftest import FIXTURES, import_or_skip
from tests.unit.mini_corpus import built_mini_home

import_or_skip("lightgbm", "ltr")
QUESTIONS = FIXTURES / "mini" / "questions-mini.jsonl"


@pytest.fixture(scope="module")
def trained_home(tmp_path_factory):
    home = built_mini_home(tmp_path_factory.mktemp("ltr"))
    out = home / "cv"
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
            "--folds",
            "2",
            "--no-ablations",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    return home, json.loads(r.stdout)


def test_the_report_scores_every_system_on_the_same_cross_validated_questions(trained_home):
    home, report = trained_home
    assert report["folds"] == 2 and report["pool"]["questions"] == 10
    assert {"bm25", "dense", "rrf", "bifrost-hybrid", "bifrost-ltr"} <= set(report["systems"])
    assert all(s["recall@10"]["n"] == 10 for s in report["systems"].values())
    assert (home / "cv" / "cv.md").read_text().startswith("## mini: 10 questions, 2-fold")


def test_ask_uses_the_stored_ranker_and_cites_an_answer_sized_set(trained_home):
    home, _ = trained_home
    bf = Bifrost(Settings(home=home))
    try:
        assert isinstance(bf.retriever("mini"), LtrRetriever)
        answer = bf.ask("Who prepares the fall protection plan?", "mini")
        assert answer.retrieved and 1 <= len(answer.citations) <= bf.retrieval_config.cite_max
    finally:
        bf.close()


def test_a_corrupt_model_falls_back_to_the_hybrid(trained_home, tmp_path):
    home, _ = trained_home
    settings = Settings(home=home)
    model_path, _card = model_paths(settings, "mini")
    saved = model_path.read_text()
    try:
        model_path.write_text("garbage")
        bf = Bifrost(settings)
        try:
            assert isinstance(bf.retriever("mini"), HybridRetriever)
            assert bf.ask("Who prepares the fall protection plan?", "mini").retrieved
        finally:
            bf.close()
    finally:
        model_path.write_text(saved)


def test_too_few_folds_is_a_one_line_error(trained_home):
    home, _ = trained_home
    r = CliRunner().invoke(
        app,
        ["--home", str(home), "train", "ranker", "--corpus", "mini", "-q", str(QUESTIONS), "--folds", "1"],
    )
    assert r.exit_code == 1 and "--folds must be at least 2" in r.output


def test_a_study_with_no_store_reports_figures_and_leaves_the_served_ranker_alone(trained_home, tmp_path):
    home, _ = trained_home
    model_path, card_path = model_paths(Settings(home=home), "mini")
    before = model_path.read_bytes(), card_path.read_bytes()
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
            "--folds",
            "2",
            "--no-ablations",
            "--no-store",
            "--seed",
            "3",
            "--out",
            str(tmp_path),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["model_path"] == "" and report["seed"] == 3 and "bifrost-ltr" in report["systems"]
    assert (model_path.read_bytes(), card_path.read_bytes()) == before
    assert "(LightGBM seed 3)" in (tmp_path / "cv.md").read_text().splitlines()[0]


def test_the_card_records_the_seed_the_stored_ranker_was_drawn_with(tmp_path):
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
            "--no-cv",
            "--seed",
            "7",
        ],
    )
    assert r.exit_code == 0, r.output
    _model, card_path = model_paths(Settings(home=home), "mini")
    assert json.loads(card_path.read_text())["params"]["random_state"] == 7


def test_no_cv_with_no_store_is_refused_in_one_line(trained_home):
    home, _ = trained_home
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
            "--no-cv",
            "--no-store",
        ],
    )
    assert r.exit_code == 1 and "leaves nothing to do" in r.output


def _split_sets(folder):
    """The mini questions as two named sets, and a held-out set of other questions (new ids and texts)."""
    lines = QUESTIONS.read_text().splitlines()
    a, b = folder / "letters.jsonl", folder / "site.jsonl"
    a.write_text("\n".join(lines[:5]) + "\n")
    b.write_text("\n".join(lines[5:]) + "\n")
    held = folder / "held.jsonl"
    held.write_text(
        json.dumps(
            {
                "id": "h1",
                "question": "Which systems protect an employee at a leading edge?",
                "gold": ["1926.501(b)(2)(i)"],
            }
        )
        + "\n"
    )
    return a, b, held


def test_several_sets_are_each_left_out_and_held_out_sets_are_scored_by_the_model_of_all(
    trained_home, tmp_path
):
    home, _ = trained_home
    a, b, held = _split_sets(tmp_path)
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
            str(a),
            "-q",
            str(b),
            "--held-out",
            str(held),
            "--folds",
            "2",
            "--no-ablations",
            "--no-store",
            "--seeds",
            "0,1",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert set(report["left_out"]) == {"letters", "site"} and set(report["held_out"]) == {"held"}
    assert report["left_out"]["site"]["bifrost-ltr"]["recall@10"]["n"] == 5
    assert {"bm25", "dense", "rrf"} <= set(report["left_out"]["letters"])
    assert report["seeds"] == [0, 1] and report["seed_means"]["site"]["n"] == 2
    assert report["worst_left_out"]["set"] in {"letters", "site", "held"}


def test_a_held_out_question_that_is_also_trained_on_is_refused_in_one_line(trained_home, tmp_path):
    home, _ = trained_home
    a, b, _ = _split_sets(tmp_path)
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
            str(a),
            "--held-out",
            str(b),
            "-q",
            str(b),
            "--no-store",
        ],
    )
    assert (
        r.exit_code == 1 and "must not be trained on" in r.output and len(r.output.strip().splitlines()) == 1
    )
