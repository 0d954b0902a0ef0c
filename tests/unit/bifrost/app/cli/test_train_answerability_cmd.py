"""`bifrost train answerability` end to end on the mini corpus: a cross-validated report, a stored card
that `ask` then refuses by, the cosine rule again when the card is unreadable, and one-line errors.

The command is attached to a root built here exactly as `bifrost/app/cli/app.py` attaches commands, so
the test does not depend on where the command is registered."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from bifrost.app.cli.app import main_options
from bifrost.app.cli.ask_cmd import ask
from bifrost.app.cli.train_answerability_cmd import train_answerability
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.retrieval.answerability.card import card_path
from tests.conftest import FIXTURES
from tests.unit.mini_corpus import MINI, build_corpus

ANSWERABLE = FIXTURES / "mini" / "questions-mini.jsonl"
UNANSWERABLE = FIXTURES / "mini" / "unanswerable-mini.jsonl"


def cli() -> typer.Typer:
    root = typer.Typer()
    root.callback()(main_options)
    root.command()(ask)
    train = typer.Typer()
    train.command("answerability")(train_answerability)
    root.add_typer(train, name="train")
    return root


@pytest.fixture(scope="module")
def trained_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("answerability")
    bf = Bifrost(Settings(home=home))
    try:
        build_corpus(bf, "mini", MINI)
    finally:
        bf.close()
    r = CliRunner().invoke(
        cli(),
        [
            "--home",
            str(home),
            "train",
            "answerability",
            "--corpus",
            "mini",
            "-q",
            str(ANSWERABLE),
            "-q",
            str(UNANSWERABLE),
            "--folds",
            "2",
            "--no-ablations",
            "--out",
            str(home / "cv"),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    return home, json.loads(r.stdout)


def test_the_report_is_cross_validated_over_both_files_and_beside_the_cosine_rule(trained_home):
    home, report = trained_home
    model, cosine = report["model"], report["cosine"]
    assert (
        model["n"] == 18
        and model["answerable"] == 10
        and report["folds"] == 2
        and report["retriever"] == "hybrid"
    )
    assert set(model["by_source"]) == {"questions-mini", "unanswerable-mini"}
    assert {"auroc", "refusal_unanswerable", "false_refusal"} <= set(model) and cosine[
        "rule"
    ] == "best cosine < 0.45"
    assert len(report["fold_thresholds"]) == 2 and 0.0 <= report["threshold"] <= 1.0
    assert (home / "cv" / "cv.md").read_text().startswith("## mini: answerability, 18 questions")
    assert len((home / "cv" / "per_question.jsonl").read_text().splitlines()) == 18


def test_the_card_is_stored_in_the_home_and_ask_refuses_by_it(trained_home):
    home, report = trained_home
    settings = Settings(home=home)
    doc = json.loads(card_path(settings, "mini").read_text())
    assert doc["corpus"] == "mini" and doc["threshold"] == report["threshold"] and len(doc["questions"]) == 2
    bf = Bifrost(settings)
    try:
        judge = bf.pipeline.judge("mini")
        assert judge is not None and judge.threshold == report["threshold"]
        for question in ("Who prepares the fall protection plan?", "How do I bake sourdough bread?"):
            result = bf.retriever("mini").retrieve(question)
            assert bf.ask(question, "mini").refused is (judge.score(question, result) < judge.threshold)
    finally:
        bf.close()


def test_an_unreadable_card_falls_back_to_the_cosine_rule_and_a_foreign_one_is_a_one_line_error(trained_home):
    home, _ = trained_home
    path = card_path(Settings(home=home), "mini")
    saved = path.read_text()
    try:
        path.write_text("{broken")
        r = CliRunner().invoke(
            cli(),
            [
                "--home",
                str(home),
                "ask",
                "Who prepares the fall protection plan?",
                "--corpus",
                "mini",
                "--json",
            ],
        )
        assert r.exit_code == 0, r.output
        path.write_text(json.dumps({**json.loads(saved), "corpus": "adgm"}))
        r = CliRunner().invoke(
            cli(), ["--home", str(home), "ask", "Who prepares the fall protection plan?", "--corpus", "mini"]
        )
        # (model loading may draw a bar first)
        errors = [line for line in r.stderr.splitlines() if "error" in line]
        assert r.exit_code == 1 and len(errors) == 1 and "trained for corpus 'adgm', not 'mini'" in errors[0]
    finally:
        path.write_text(saved)


def test_bad_arguments_are_one_line_errors(trained_home):
    home, _ = trained_home
    base = ["--home", str(home), "train", "answerability", "--corpus", "mini"]
    r = CliRunner().invoke(cli(), base + ["-q", str(ANSWERABLE), "-q", str(UNANSWERABLE), "--folds", "1"])
    assert r.exit_code == 1 and "--folds must be at least 2" in r.stderr
    r = CliRunner().invoke(cli(), base + ["-q", str(ANSWERABLE), "--folds", "2", "--no-ablations"])
    assert r.exit_code == 1 and "need both answerable and unanswerable" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_the_eval_systems_refuse_by_the_same_card_and_record_it(trained_home):
    from bifrost.eval.bifrost_systems import factory_for

    home, report = trained_home
    system = factory_for("bifrost-hybrid")(Settings(home=home), "mini")
    system.warm_up("mini")
    judge = system._pipeline.judge("mini")
    question = "How do I bake sourdough bread?"
    result = system.search(question, 10)
    assert result.refused is (judge.score(question, system._retriever.retrieve(question)) < judge.threshold)
    assert system.describe()["answerability_card"]["threshold"] == report["threshold"]


def _mixed_sets(folder):
    """Two sets that each hold answerable and unanswerable questions, and a held-out third."""
    ans, unans = ANSWERABLE.read_text().splitlines(), UNANSWERABLE.read_text().splitlines()
    a, b, held = folder / "letters.jsonl", folder / "site.jsonl", folder / "held.jsonl"
    a.write_text("\n".join(ans[:5] + unans[:3]) + "\n")
    b.write_text("\n".join(ans[5:] + unans[3:6]) + "\n")
    held.write_text(
        "\n".join(
            unans[6:]
            + [
                json.dumps(
                    {
                        "id": "h1",
                        "question": "Which systems protect a worker at a leading edge?",
                        "gold": ["1926.501(b)(2)(i)"],
                    }
                )
            ]
        )
        + "\n"
    )
    return a, b, held


def test_each_set_left_out_is_judged_with_thresholds_chosen_on_the_others_in_three_outcomes(
    trained_home, tmp_path
):
    home, _ = trained_home
    a, b, held = _mixed_sets(tmp_path)
    r = CliRunner().invoke(
        cli(),
        [
            "--home",
            str(home),
            "train",
            "answerability",
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
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert set(report["left_out"]) == {"letters", "site"} and set(report["held_out"]) == {"held"}
    site = report["left_out"]["site"]
    assert site["n"] == 8 and {"refused", "not_stated", "refused_or_not_stated"} <= set(site["answerable"])
    assert site["thresholds"]["refuse"] <= site["thresholds"]["answer"]
    assert [p["answerable_lost"] for p in site["curve"]] == sorted(
        p["answerable_lost"] for p in site["curve"]
    )
    assert report["card_path"] == "" and report["threshold"] <= report["answer_threshold"]


def test_between_the_two_thresholds_ask_says_not_stated_and_quotes_the_closest_provisions(trained_home):
    home, _ = trained_home
    path = card_path(Settings(home=home), "mini")
    saved = path.read_text()
    try:
        path.write_text(json.dumps({**json.loads(saved), "threshold": 0.0, "answer_threshold": 1.0}))
        r = CliRunner().invoke(
            cli(),
            [
                "--home",
                str(home),
                "ask",
                "Who prepares the fall protection plan?",
                "--corpus",
                "mini",
                "--json",
            ],
        )
        answer = json.loads(r.stdout)
        assert answer["outcome"] == "not_stated" and not answer["refused"]
        assert answer["statements"][0]["text"].startswith("The closest provisions do not state it")
        assert all(st["quotes"] for st in answer["statements"]) and len(answer["statements"]) >= 2
    finally:
        path.write_text(saved)
