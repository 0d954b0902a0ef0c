"""One tool count everywhere: the MCP tools the README, docs/operations.md and `bifrost mcp --help` name are
the server's own list (`bifrost.app.mcp.ports.TOOLS`, checked against a live server in
tests/integration/test_mcp_server.py), and no make target's default port is the MCP server's."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from bifrost.app.cli.app import app
from bifrost.app.mcp.ports import MCP_PORT, TOOLS
from tests.unit.test_readme_commands import README, ROOT

COUNT = {5: "five", 6: "six", 7: "seven", 8: "eight"}[len(TOOLS)]


def test_the_readme_and_the_docs_name_every_tool_and_the_same_count():
    for path in (README, ROOT / "docs" / "operations.md"):
        text = path.read_text(encoding="utf-8")
        line = next(line for line in text.splitlines() if "read-only tools" in line.lower())
        assert all(f"`{t}`" in text for t in TOOLS), path.name
        assert re.search(rf"\b{COUNT}\b", line, re.I), f"{path.name}: {line}"
        assert not re.search(r"\b(?:five|six|eight)\b read-only tools", text, re.I) or COUNT in (
            "five",
            "six",
        )


def test_help_names_every_tool():
    out = CliRunner().invoke(app, ["mcp", "--help"], terminal_width=200).output
    assert f"{len(TOOLS)} read-only tools" in out and all(t in out for t in TOOLS)


def test_no_make_target_defaults_to_the_mcp_port():
    taken = set(re.findall(r"\b(\d{4})\b", (ROOT / "docker" / "llm-launcher" / "start.sh").read_text()))
    taken |= {"8000", "7474", "7687", "5433"}
    assert str(MCP_PORT) not in taken
