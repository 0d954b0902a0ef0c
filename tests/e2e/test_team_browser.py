"""The team server in a real browser: `bifrost serve` with tokens on, driven by headless Chromium. A page
asked for without a session shows the login; the token logs in and comes back to the page; a reviewer
marks a cited provision and the review is saved; nothing breaks the content policy; logging out ends it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.e2e.test_web_browser import browser, page, shot  # noqa: F401 - the browser fixtures
from tests.unit.bifrost.app.web.test_workers import Server
from tests.unit.mini_corpus import QUESTIONS, built_mini_home

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    home = built_mini_home(tmp_path_factory.mktemp("team-browser"))
    bf = Bifrost(Settings(home=home))
    token = bf.users.add("rev", "reviewer", ["mini"]).secret
    bf.close()
    server = Server(home, 1, None, {"BIFROST_AUTH": "tokens"})
    yield server, token, home
    server.stop()


def test_login_ask_review_and_log_out_in_a_browser(team, page):  # noqa: F811 - the fixture
    server, token, home = team
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    target = f"{server.base}/ask?q={quote(QUESTIONS[0])}&corpus=mini"
    response = page.goto(target)
    assert response.status == 401 and page.locator("#token").is_visible()
    page.fill("#token", token)
    page.click("button[type=submit]")
    page.wait_for_selector("#answer-title")
    assert page.url == target
    assert page.locator(".user-name").inner_text().startswith("rev")
    record_link = page.locator(".record-link a")
    record_id = record_link.inner_text()
    first = page.locator(".review fieldset.mark").first
    first.locator("input[value=right]").check()
    page.fill("#team", "site safety")
    page.click(".review-form button[type=submit]")
    page.wait_for_selector(".notice")
    assert page.url.endswith(f"/answers/{record_id}?reviewed=1") and "Review saved" in page.inner_text(
        ".notice"
    )
    shot(page, "team_review_saved")
    bf = Bifrost(Settings(home=home))
    try:
        assert any(r.reviewer == "rev" and r.team == "site safety" for r, _ in bf.reviews("mini"))
    finally:
        bf.close()
    page.click(".logout-form button")
    page.wait_for_selector("#login-h")
    assert page.goto(f"{server.base}/answers").status == 401
    assert not [m for m in console if "Content Security Policy" in m], console
    assert token not in Path(server.log).read_text()
