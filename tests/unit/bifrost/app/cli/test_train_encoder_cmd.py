"""`bifrost train encoder` then `bifrost build entities --reembed` with the trained model, on the mini corpus.

The train command is attached to a root built here as `bifrost/app/cli/app.py` attaches commands."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from bifrost.app.cli.app import main_options
from bifrost.app.cli.build_cmd import build_app
from bifrost.app.cli.train_encoder_cmd import train_encoder
from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.store import entity_tables
from tests.unit.mini_corpus import MINI, build_corpus


def cli() -> typer.Typer:
    root = typer.Typer()
    root.callback()(main_options)
    root.add_typer(build_app, name="build")
    train = typer.Typer()
    train.command("encoder")(train_encoder)
    root.add_typer(train, name="train")
    return root


def test_train_encoder_then_reembed_the_entity_network_with_it(tmp_path, monkeypatch):
    home = tmp_path / "home"
    bf = Bifrost(Settings(home=home))
    build_corpus(bf, "mini", MINI)
    with bf.sql.session() as s:
        names, before = entity_tables.load_entity_matrix(s, "mini")
    bf.close()
    runner = CliRunner()
    r = runner.invoke(
        cli(), ["--home", str(home), "train", "encoder", "--corpus", "mini", "--max-pairs", "20", "--json"]
    )
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["path"] == str(home / "models" / "encoder-mini") and sum(report["pairs"].values()) <= 20
    monkeypatch.setenv("BIFROST_EMBEDDING_MODEL", report["path"])
    r = runner.invoke(
        cli(), ["--home", str(home), "build", "entities", "--corpus", "mini", "--reembed", "--json"]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["entities"] == len(names)
    bf = Bifrost(Settings(home=home))
    with bf.sql.session() as s:
        names2, after = entity_tables.load_entity_matrix(s, "mini")
    bf.close()
    assert names2 == names and after.shape == before.shape


def test_train_encoder_on_an_absent_corpus_fails_in_one_line(tmp_path):
    r = CliRunner().invoke(cli(), ["--home", str(tmp_path), "train", "encoder", "--corpus", "absent"])
    assert r.exit_code == 1
    assert "absent" in r.output and "Traceback" not in r.output
