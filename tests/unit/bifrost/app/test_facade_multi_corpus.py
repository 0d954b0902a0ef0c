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


def test_without_a_corpus_the_api_asks_the_only_one_or_every_one_and_says_when_no_router_chose(
    home, tmp_path
):
    from bifrost.core.errors import BifrostError

    bf = Bifrost(Settings(home=home))
    try:
        every = bf.ask(RAILS)
        with pytest.raises(BifrostError, match=r"search ranks one corpus at a time: name one of mini, p9999"):
            bf.search(RAILS)
    finally:
        bf.close()
    assert every.corpus == "mini,p9999" and every.routing == []
    assert any(
        w.startswith("every corpus named was asked: this home stores no corpus router")
        for w in every.warnings
    )
    one = tmp_path / "one"
    bf = Bifrost(Settings(home=one))
    try:
        build_corpus(bf, "mini", MINI)
        assert bf.ask(RAILS).corpus == "mini" and bf.search(RAILS, k=2)[0].corpus == "mini"
    finally:
        bf.close()


LETTERS = [
    *(
        {
            "id": f"rails-{i}",
            "title": t,
            "date": f"{1990 + 2 * i}-01-0{1 + i % 8}",
            "cites": ["9999.502(b)(1)"],
        }
        for i, t in enumerate(
            [
                "Height of top rails on test site guardrails",
                "Top rail height at the test site edge",
                "Guardrail top rails for test sites",
                "Whether a test site rail must be 42 inches high",
                "Rail heights on a testing platform",
                "Top rails of guardrails at test sites in wind",
            ]
        )
    ),
    *(
        {
            "id": f"edge-{i}",
            "title": t,
            "date": f"{1991 + 2 * i}-02-0{1 + i % 8}",
            "cites": ["1926.501(b)(2)"],
        }
        for i, t in enumerate(
            [
                "Leading edge work and a fall protection plan",
                "Who prepares the fall protection plan for leading edges",
                "Protection of employees constructing a leading edge",
                "Conventional fall protection at leading edges is feasible",
                "Leading edge workers protected by safety nets",
                "A qualified person writes the leading edge plan",
            ]
        )
    ),
    *(
        {
            "id": f"lock-{i}",
            "title": t,
            "date": f"{1992 + 2 * i}-03-0{1 + i % 8}",
            "cites": ["1910.147(c)(4)"],
        }
        for i, t in enumerate(
            [
                "Lockout of packaging machines during servicing",
                "Energy control procedures for plant machinery",
                "Padlocks on machine disconnects during maintenance",
                "Tagout instead of lockout on a conveyor",
            ]
        )
    ),
]


@pytest.fixture(scope="module")
def routed_home(home, tmp_path_factory):
    """The two-corpus home with answered questions citing each corpus and Part 1910, and a router trained
    on them."""
    import shutil

    copy = tmp_path_factory.mktemp("routed") / "home"
    shutil.copytree(home, copy)
    letters = copy.parent / "letters.jsonl"
    letters.write_text("\n".join(json.dumps(r) for r in LETTERS) + "\n", encoding="utf-8")
    bf = Bifrost(Settings(home=copy))
    try:
        bf.import_precedents(letters, "mini", issuer="OSHA")
        report = bf.train_router()
    finally:
        bf.close()
    return copy, report


def test_a_trained_router_is_validated_forward_stored_and_routes_every_question_asked_of_all(routed_home):
    from bifrost.retrieval.routing.model import load_router

    copy, report = routed_home
    assert report.letters == len(LETTERS) and report.forward["questions"] > 0 and report.path
    stored = load_router(Settings(home=copy))
    assert stored is not None and stored.trained["corpora"] == ["mini", "p9999"]
    assert stored.weights[-1] > 0  # the share of the nearest answered questions a corpus answers
    bf = Bifrost(Settings(home=copy))
    try:
        answer = bf.ask(RAILS)
    finally:
        bf.close()
    asked = [c.corpus for c in answer.routing if c.asked]
    assert sorted(c.corpus for c in answer.routing) == ["mini", "p9999"] and asked
    assert answer.corpus == ",".join(asked) and not any("no corpus router" in w for w in answer.warnings)


def test_the_cli_trains_the_router_without_storing_it_and_prints_its_figures(routed_home):
    copy, _ = routed_home
    before = (copy / "models" / "router.json").read_bytes()
    result = CliRunner().invoke(make_app(), ["--home", str(copy), "train", "router", "--no-store", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["path"] is None and data["letters"] == len(LETTERS) and "first_right" in data["forward"]
    assert (copy / "models" / "router.json").read_bytes() == before  # --no-store leaves the served one alone
    table = CliRunner().invoke(make_app(), ["--home", str(copy), "train", "router", "--no-store"])
    assert table.exit_code == 0 and "likeliest right" in table.stdout and "nothing stored" in table.stdout


def test_training_a_router_on_a_home_of_one_corpus_says_there_is_nothing_to_route(tmp_path):
    bf = Bifrost(Settings(home=tmp_path / "one"))
    try:
        build_corpus(bf, "mini", MINI)
        result = CliRunner().invoke(make_app(), ["--home", str(tmp_path / "one"), "train", "router"])
    finally:
        bf.close()
    assert result.exit_code != 0 and "this home holds one (nothing to route)" in result.output


def test_warming_up_every_corpus_loads_the_router_before_the_first_question(routed_home, tmp_path):
    import shutil

    copy = tmp_path / "home"
    shutil.copytree(routed_home[0], copy)
    bf = Bifrost(Settings(home=copy))
    try:
        bf.warm_up("all")
        (copy / "models" / "router.json").unlink()  # read at warm-up: the first question needs it no more
        answer = bf.ask(RAILS)
    finally:
        bf.close()
    assert [c.corpus for c in answer.routing if c.asked] and not any(
        "no corpus router" in w for w in answer.warnings
    )
