"""The MCP `diff` tool through the real protocol, on a home holding two editions of the mini part."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.integration.mcp_client import SyncMcp, stdio_params
from tests.integration.test_editions import DATE_A, DATE_B, edition_b
from tests.unit.mini_corpus import MINI

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def mcp(tmp_path_factory) -> SyncMcp:
    root = tmp_path_factory.mktemp("mcp-editions")
    bf = Bifrost(Settings(home=root / "home"))
    try:
        for source, date in ((MINI, DATE_A), (edition_b(root / "b"), DATE_B)):
            bf.ingest("mini", [source], date=date)
            bf.build_navigator("mini")  # as `bifrost ingest` does: each edition's references are recorded
        bf.build_entities("mini", "offline")
    finally:
        bf.close()
    session = SyncMcp(stdio_params(root / "home"))
    yield session
    session.close()


def test_diff_reports_repeals_renumbering_and_the_citations_they_leave_dangling(mcp):
    d = mcp.call("diff", corpus="mini")
    assert (d["from_edition"]["number"], d["to_edition"]["number"]) == (1, 2)
    assert "1926.502(b)(1)" in d["removed"] and "1926.501(c)" in d["added"]
    assert {"old_id": "1926.500(b)[Leading edge]", "new_id": "1926.500(c)[Leading edge]"}.items() <= d[
        "moved"
    ][0].items()
    assert any(
        a["source"] == "1926.501(b)(2)(i)" and a["target_status"] == "removed" for a in d["newly_dangling"]
    )


def test_diff_takes_editions_by_number_or_by_date(mcp):
    by_date = mcp.call("diff", corpus="mini", from_edition="2024-06-01", to_edition="2")
    assert by_date["from_edition"]["date"] == DATE_A and by_date["to_edition"]["date"] == DATE_B


def test_a_bad_edition_is_a_one_line_error_and_the_server_keeps_serving(mcp):
    with pytest.raises(MCPError, match="not a date"):
        mcp.call("diff", corpus="mini", from_edition="last tuesday")
    with pytest.raises(MCPError, match="no edition 9"):
        mcp.call("diff", corpus="mini", to_edition="9")
    assert mcp.call("diff", corpus="mini")["to_edition"]["number"] == 2


def test_ask_as_of_a_date_in_edition_a_cites_the_repealed_paragraph_and_says_how_it_ranked(mcp):
    a = mcp.call(
        "ask", question="Who shall prepare the fall protection plan?", corpus="mini", as_of="2024-06-01"
    )
    assert "1926.502(b)(1)" in [c["id"] for c in a["citations"]]
    assert a["edition"]["number"] == 1 and a["note"].startswith(
        f"as of edition 1 ({DATE_A}): ranked by lexical + dense fusion"
    )
    now = mcp.call("ask", question="Who shall prepare the fall protection plan?", corpus="mini")
    assert "1926.502(b)(1)" not in [c["id"] for c in now["citations"]] and now["edition"] is None


@pytest.mark.parametrize(
    "as_of,message",
    [
        ("last tuesday", "as_of: 'last tuesday' is not a date (YYYY-MM-DD) or an edition number"),
        ("2023-01-01", f"mini has no edition valid on 2023-01-01: its first edition is dated {DATE_A}"),
    ],
)
def test_ask_with_a_bad_or_too_early_as_of_is_a_one_line_error(mcp, as_of, message):
    with pytest.raises(MCPError) as info:
        mcp.call("ask", question="Who shall prepare the fall protection plan?", corpus="mini", as_of=as_of)
    assert info.value.message == message
