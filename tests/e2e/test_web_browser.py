"""The web app in a real browser: the real server (uvicorn) on the OSHA graph, driven by headless
Debian Chromium through Playwright. Leaves screenshots in tests/artifacts/.

Uses the session's OSHA home (both graphs of all of Part 1926, built once; see tests/conftest.py).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.app.web import create_app
from bifrost.app.web.views import provision_url
from tests.conftest import copy_home
from tests.unit.mini_corpus import SCRIPT, SCRIPT_ID, build_corpus, write_script_corpus

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
OSHA = "osha-1926"
RAINSTORM = "How to protect excavation work from rainstorm hazard?"
UNANSWERABLE = "How do I bake sourdough bread?"


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(what)
    pytest.skip(what)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def web_home(osha_home, tmp_path_factory) -> Path:
    """A copy of the built OSHA home plus a tiny corpus whose text holds a <script> tag."""
    home = tmp_path_factory.mktemp("web") / "home"
    copy_home(osha_home, home)
    bf = Bifrost(Settings(home=home))
    try:
        build_corpus(bf, "mini", write_script_corpus(home.parent))
    finally:
        bf.close()
    return home


@pytest.fixture(scope="session")
def server(web_home) -> str:
    """The real app served by uvicorn on a free loopback port, warmed up; yields its base URL."""
    import uvicorn

    bf = Bifrost(Settings(home=web_home))
    app = create_app(bf)
    app.state.web.warm_up()
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)
    bf.close()


@pytest.fixture(scope="module")
def browser():
    exe = os.environ.get("BIFROST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(exe).exists():
        _missing("Chromium not found (apt-get install -y chromium, or set BIFROST_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install playwright; no `playwright install` needed)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    dialogs: list[str] = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.dialogs = dialogs
    yield pg
    ctx.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"web_{name}.png"), full_page=True)


def test_search_results_and_provision_pages(server, page):
    page.goto(server + "/")
    assert page.locator("select#corpus").count() == 1  # two corpora are served
    assert page.locator("select#corpus").input_value() == "all"  # every rulebook, unless one is chosen
    shot(page, "search")
    page.select_option("select#corpus", OSHA)
    page.fill("#q", RAINSTORM)
    page.click("button[type=submit]")
    page.wait_for_url("**/ask?**")
    sources = page.locator("article.source h3").all_inner_texts()
    for pid in ("1926.651(h)(1)", "1926.651(h)(2)", "1926.651(h)(3)"):
        assert pid in sources
    assert page.locator("svg.nav-graph a.node").count() >= 3
    assert "Extractive answer" in page.inner_text(".answer-head")
    shot(page, "results")
    page.locator("a.cite").first.click()
    assert page.url.split("#")[1].startswith("src-")
    page.click(f"article.source a[href='{provision_url(OSHA, '1926.651(h)(3)')}']")
    page.wait_for_url("**/provision/**")
    assert page.inner_text("h1") == "1926.651(h)(3)"
    assert "diversion ditches" in page.inner_text("article.provision")
    assert page.locator(f"a[href='{provision_url(OSHA, '1926.651(h)(1)')}']").count() >= 1
    shot(page, "provision")
    page.click(f"a[href='{provision_url(OSHA, '1926.651(h)')}'] >> nth=0")
    assert "1926.651(h)" in page.inner_text("h1") and page.locator(".link-list li").count() >= 3


LEADING_EDGE = (
    "Can a combination of a warning line system and personal fall arrest system be used for all types of "
    "leading-edge work?"
)


def test_the_leading_edge_answer_says_no_and_why_above_its_quotes_and_draws_its_graph(server, page):
    """The paper's verdict question, as a person reads it: the verdict line gives the reason in one clause,
    the deciding sentences are quoted each with its provision, and the nested shared parents are drawn."""
    page.goto(server + "/ask?q=" + quote(LEADING_EDGE) + f"&corpus={OSHA}")
    line = page.inner_text("p.verdict")
    assert (
        line.startswith("No: 1926.501(b)(10)") and "leading-edge work is covered by 1926.501(b)(2)" in line
    ), line
    first = page.locator("ol.statements > li").first
    assert first.locator("q").count() >= 2 and "1926.501(b)(10)" in first.locator("a.cite").all_inner_texts()
    assert "low-slope roofs" in first.locator("q").first.inner_text()
    assert page.locator("svg.nav-graph a.node").count() >= 5
    shot(page, "leading_edge")


def test_refusal_is_shown_without_sources(server, page):
    page.goto(server + "/")
    page.fill("#q", UNANSWERABLE)
    page.click("button[type=submit]")
    page.wait_for_url("**/ask?**")
    assert "No answer in the indexed regulations" in page.inner_text("h1")
    assert "do not answer" in page.inner_text(".refusal")
    assert page.locator("article.source").count() == 0 and page.locator("svg.nav-graph").count() == 0
    shot(page, "refusal")


def test_keyboard_tab_to_the_box_type_and_enter_submits(server, page):
    page.goto(server + "/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    for _ in range(10):
        if page.evaluate("document.activeElement.id") == "q":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type(RAINSTORM)
    page.keyboard.press("Enter")
    page.wait_for_url("**/ask?**")
    assert page.locator("article.source").count() >= 3


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/ask?q=How+to+protect+excavation+work+from+rainstorm+hazard%3F",
        provision_url(OSHA, "1926.651(h)(3)"),
        provision_url(OSHA, "1926 Subpart P"),
    ],
)
def test_phone_width_has_no_horizontal_overflow(server, browser, path):
    ctx = browser.new_context(viewport={"width": 375, "height": 812}, device_scale_factor=2, is_mobile=True)
    pg = ctx.new_page()
    pg.goto(server + path)
    assert pg.evaluate("document.documentElement.scrollWidth") <= 375
    if path.startswith("/ask"):
        shot(pg, "results_phone")
    ctx.close()


def test_script_in_a_question_and_in_a_provision_is_shown_as_text(server, page):
    page.goto(
        server
        + "/ask?corpus=mini&q="
        + "%3Cscript%3Ealert(1)%3C%2Fscript%3E+What+training+must+the+employer+provide%3F"
    )
    assert page.input_value("#q").startswith(SCRIPT)
    assert SCRIPT in page.inner_text("main")
    page.goto(server + provision_url("mini", SCRIPT_ID))
    assert SCRIPT in page.inner_text("article.provision")
    assert page.locator("main script").count() == 0
    assert page.dialogs == []
