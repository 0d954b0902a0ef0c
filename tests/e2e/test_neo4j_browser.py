"""Neo4j Browser is served by the dev Neo4j, connects without auth, runs a query and draws
the Bifrost style, in headless Debian Chromium driven by Playwright (no browser download:
``executable_path`` is the system Chromium). Leaves a screenshot in tests/artifacts/.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.integration.neo4j_env import neo4j_uri
from tests.integration.sample_dng import sample_store

pytestmark = [pytest.mark.neo4j, pytest.mark.browser, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
GRASS = ROOT / "docker" / "neo4j" / "bifrost.grass"
CORPUS = "osha-1926-browser-test"
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
QUERY = (
    f"MATCH path = (p:Section {{corpus: '{CORPUS}', id: '1926.502(k)'}})-[:REFERS_TO*1..2]-(:Section) "
    "RETURN path"
)


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(what)
    pytest.skip(what)


@pytest.fixture(scope="module")
def chromium() -> str:
    exe = os.environ.get("BIFROST_CHROMIUM") or shutil.which("chromium")
    if not exe:
        _missing("Chromium not found (apt-get install -y chromium, or set BIFROST_CHROMIUM)")
    return exe


@pytest.fixture(scope="module")
def playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install playwright; no `playwright install` needed)")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def sample_graph():
    yield from sample_store(CORPUS)


def browser_url(bolt: str) -> str:
    http = os.environ.get("BIFROST_NEO4J_HTTP_URL", f"http://{urlparse(bolt).hostname}:7474")
    return f"{http.rstrip('/')}/browser/?dbms={bolt.rstrip('/')}&preselectAuthMethod=NO_AUTH"


def test_browser_connects_runs_a_query_and_draws_the_graph(playwright, chromium, sample_graph):
    url = browser_url(neo4j_uri())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "neo4j_browser.png"
    shot.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="bifrost-chromium-") as profile:
        ctx = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=chromium,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        try:
            page = ctx.new_page()
            page.goto(url, timeout=60_000)
            page.get_by_text("Connected to Neo4j").wait_for(timeout=60_000)

            def run(command: str) -> None:
                page.get_by_test_id("activeEditor").click()
                page.keyboard.insert_text(command)
                page.keyboard.press("Control+Enter")

            run(":style " + " ".join(GRASS.read_text().split()))
            page.get_by_test_id("styleResetButton").wait_for(timeout=30_000)
            run(QUERY)
            page.get_by_test_id("vizInspector").wait_for(timeout=60_000)
            page.locator("svg g.node").nth(4).wait_for(timeout=30_000)
            page.wait_for_timeout(2_000)  # let the force layout settle for the screenshot
            page.screenshot(path=str(shot))
            nodes = page.locator("svg g.node").count()
            labels = page.get_by_test_id("property-details-overview-node-label-Section").inner_text()
            types = page.get_by_test_id("property-details-overview-relationship-type-REFERS_TO").inner_text()
        finally:
            ctx.close()
    assert nodes == 5  # 1926.502(k), the three provisions citing it and 1926.501(b)(2)
    assert labels.startswith("Section") and types.startswith("REFERS_TO")
    assert shot.stat().st_size > 10_000
