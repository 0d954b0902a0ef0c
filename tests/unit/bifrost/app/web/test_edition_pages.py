"""Editions on the web: the provision page shows earlier versions, and `as_of` shows an earlier edition."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from bifrost.app.facade import Bifrost
from bifrost.app.web import create_app
from bifrost.core.settings import Settings
from tests.integration.test_editions import DATE_A, DATE_B, edition_b
from tests.unit.mini_corpus import MINI


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("web-editions")
    bf = Bifrost(Settings(home=root / "home"))
    for source, date in ((MINI, DATE_A), (edition_b(root / "b"), DATE_B)):
        bf.ingest("mini", [source], date=date)
        bf.build_navigator("mini")
    bf.build_entities("mini", "offline")
    with TestClient(create_app(bf), raise_server_exceptions=False) as c:
        yield c
    bf.close()


def test_a_changed_provision_shows_the_edition_that_changed_it_and_its_previous_text(client):
    page = client.get("/provision/mini/1926.501(b)(1)").text
    assert "Earlier versions" in page and f"Changed in edition 2 ({DATE_B})" in page
    assert "Each employee shall be protected from falling.</p>" in page
    api = client.get("/api/provision/mini/1926.501(b)(1)").json()
    assert api["history"][0]["change"] == "changed" and "{+falling by guardrail" in api["history"][0]["diff"]


def test_as_of_shows_a_repealed_provision_as_it_stood(client):
    page = client.get("/provision/mini/1926.502(b)(1)", params={"as_of": "2024-06-01"})
    assert page.status_code == 200 and "As of edition 1 (2024-01-01)" in page.text
    api = client.get("/api/provision/mini/1926.502(b)(1)", params={"as_of": "1"}).json()
    assert api["edition"]["number"] == 1 and api["provision"]["text"].startswith("The fall protection plan")


def test_a_repealed_provision_today_says_when_it_was_removed(client):
    r = client.get("/api/provision/mini/1926.502(b)(1)")
    assert r.status_code == 404 and f"removed in edition 2 ({DATE_B})" in r.json()["message"]


def test_a_bad_as_of_is_a_one_line_client_error(client):
    r = client.get("/api/provision/mini/1926.501(b)(1)", params={"as_of": "yesterday"})
    assert r.status_code == 400 and "not a date (YYYY-MM-DD) or an edition number" in r.json()["message"]


def test_api_ask_as_of_answers_from_the_edition_valid_then(client):
    body = {"question": "Who shall prepare the fall protection plan?", "corpus": "mini"}
    past = client.post("/api/ask", json={**body, "as_of": "2024-06-01"}).json()
    assert "1926.502(b)(1)" in [c["id"] for c in past["citations"]]
    assert past["edition"]["number"] == 1 and past["note"].startswith(f"as of edition 1 ({DATE_A})")
    now = client.post("/api/ask", json=body).json()
    assert "1926.502(b)(1)" not in [c["id"] for c in now["citations"]] and now["edition"] is None


def test_api_ask_with_a_bad_as_of_is_a_one_line_client_error(client):
    r = client.post(
        "/api/ask", json={"question": "Who prepares the plan?", "corpus": "mini", "as_of": "soon"}
    )
    assert (
        r.status_code == 400
        and r.json()["message"] == "as_of: 'soon' is not a date (YYYY-MM-DD) or an edition number"
    )
    r = client.post(
        "/api/ask", json={"question": "Who prepares the plan?", "corpus": "mini", "as_of": "2023-01-01"}
    )
    assert r.status_code == 404 and "no edition valid on 2023-01-01" in r.json()["message"]
