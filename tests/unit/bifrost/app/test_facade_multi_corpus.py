"""`ask` over two corpora of one home through the facade and the CLI: citations carry their corpus."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bifrost.app.cli.app import make_app
from bifrost.app.facade import Bifrost
from bifrost.core.errors import NotFoundError
from bifrost.core.settings import Settings
from tests.conftest import FIXTURES
from tests.unit.mini_corpus import MINI, build_corpus

RAILS = "How high shall top rails be?"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("multi") / "home"
    bf = Bifrost(Settings(home=home))
    try:
        build_corpus(bf, "mini", MINI)
        build_corpus(bf, "p9999", FIXTURES / "ecfr" / "part-9999-mini.xml")
    finally:
        bf.close()
    return home


def test_a_question_over_all_corpora_cites_the_corpus_that_holds_the_answer(home):
    bf = Bifrost(Settings(home=home))
    try:
        answer = bf.ask(RAILS, "all")
        single = bf.ask(RAILS, "p9999")
        with pytest.raises(NotFoundError, match="unknown corpus 'nope'"):
            bf.ask(RAILS, "mini,nope")
    finally:
        bf.close()
    assert answer.corpus == "mini,p9999" and not answer.refused
    assert answer.citations[0].corpus == "p9999" and answer.statements[0].corpus == "p9999"
    assert answer.citations[0].id == single.citations[0].id
    assert {it.corpus for it in answer.retrieved} == {"mini", "p9999"}


def test_asked_together_a_corpus_without_a_trained_ranker_says_so_in_one_line_and_alone_it_does_not(home):
    bf = Bifrost(Settings(home=home))
    try:
        together, alone = bf.ask(RAILS, "all"), bf.ask(RAILS, "p9999")
    finally:
        bf.close()
    said = [w for w in together.warnings if "hand-set hybrid" in w]
    assert any(w.startswith("p9999 is ranked by the hand-set hybrid") for w in said)
    assert all("bifrost train ranker --corpus" in w and "\n" not in w for w in said)
    assert not [w for w in alone.warnings if "hand-set hybrid" in w]


def test_the_cli_takes_a_comma_separated_list_and_shows_the_corpus_on_each_citation(home):
    runner = CliRunner()
    result = runner.invoke(
        make_app(), ["--home", str(home), "ask", RAILS, "--corpus", "mini,p9999", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["corpus"] == "mini,p9999" and data["statements"][0]["corpus"] == "p9999"
    text = runner.invoke(make_app(), ["--home", str(home), "ask", RAILS, "--corpus", "mini,p9999"]).stdout
    assert "[p9999 9999.502(b)(1)]" in text


def test_the_web_api_takes_the_same_list_and_names_an_unknown_corpus(home):
    from fastapi.testclient import TestClient

    from bifrost.app.web import create_app

    bf = Bifrost(Settings(home=home))
    try:
        with TestClient(create_app(bf), raise_server_exceptions=False) as client:
            ok = client.post("/api/ask", json={"question": RAILS, "corpus": "all"})
            bad = client.post("/api/ask", json={"question": RAILS, "corpus": "mini,nope"})
            page = client.get("/ask", params={"q": RAILS, "corpus": "mini,p9999"})
    finally:
        bf.close()
    assert ok.status_code == 200 and ok.json()["citations"][0]["corpus"] == "p9999"
    assert bad.status_code == 404 and "unknown corpus 'nope'" in bad.json()["message"]
    assert page.status_code == 200 and "/provision/p9999/9999.502" in page.text


def test_without_a_corpus_the_api_asks_the_only_one_and_names_them_when_there_are_several(home, tmp_path):
    from bifrost.core.errors import BifrostError

    bf = Bifrost(Settings(home=home))
    try:
        with pytest.raises(BifrostError, match=r"several corpora \(.*mini.*p9999.*\): name one"):
            bf.ask(RAILS)
    finally:
        bf.close()
    one = tmp_path / "one"
    bf = Bifrost(Settings(home=one))
    try:
        build_corpus(bf, "mini", MINI)
        assert bf.ask(RAILS).corpus == "mini" and bf.search(RAILS, k=2)[0].corpus == "mini"
    finally:
        bf.close()
