"""The stdio transport: the SDK's public entry point serves, and in a real server process stray output
of tool code never reaches the protocol stream."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import anyio
import pytest

from tests.conftest import ROOT, subprocess_env

NOISY_SERVER = textwrap.dedent("""
    import os, anyio
    from mcp.server.mcpserver import MCPServer
    from bifrost.app.mcp.stdio import serve_stdio

    server = MCPServer("noisy")

    @server.tool()
    async def noisy(word: str) -> str:
        print("noise from print")
        os.write(1, b"noise on fd 1\\n")
        return word.upper()

    anyio.run(serve_stdio, server)
""")
REQUESTS = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "noisy", "arguments": {"word": "quiet"}},
    },
]


@pytest.mark.timeout(120)
def test_stray_output_of_a_tool_goes_to_stderr_and_the_wire_carries_only_protocol_messages():
    proc = subprocess.Popen(
        [sys.executable, "-c", NOISY_SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        cwd=str(ROOT),
        text=True,
    )
    try:
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in REQUESTS))
        proc.stdin.flush()
        lines = [proc.stdout.readline(), proc.stdout.readline()]  # the two replies, in order
        proc.stdin.close()  # end of input: the server stops
        rest, err = proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    replies = [json.loads(line) for line in lines]
    assert [m["id"] for m in replies] == [1, 2]
    assert replies[1]["result"]["content"][0]["text"] == "QUIET"
    assert rest == ""
    assert "noise from print" in err and "noise on fd 1" in err


def test_serve_stdio_runs_the_server_through_the_sdks_public_stdio_entry_point(monkeypatch):
    from unittest.mock import AsyncMock, MagicMock

    from mcp.server.mcpserver import MCPServer

    from bifrost.app.mcp import stdio

    monkeypatch.setattr(stdio, "is_pipe", lambda fd: True, raising=False)  # pipes, as an MCP client gives
    server = MagicMock(spec=MCPServer)  # the public surface only: no `_lowlevel_server`
    server.run_stdio_async = AsyncMock()
    anyio.run(stdio.serve_stdio, server)
    server.run_stdio_async.assert_awaited_once_with()
