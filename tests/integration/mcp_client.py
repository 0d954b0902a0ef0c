"""Driving the real `bifrost mcp` server from synchronous tests: the SDK's `Client` over stdio
(the server a subprocess) or streamable HTTP, run in an anyio blocking portal."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters

from tests.conftest import ROOT, subprocess_env

TIMEOUT = 300


def server_command(home: Path, *args: str) -> list[str]:
    """``bifrost --home HOME mcp ARGS`` run with this interpreter (not the console script)."""
    return [sys.executable, "-m", "bifrost.app.cli.app", "--home", str(home), "mcp", *args]


def stdio_params(home: Path, *args: str) -> StdioServerParameters:
    command = server_command(home, *args)
    return StdioServerParameters(command=command[0], args=command[1:], env=subprocess_env(), cwd=str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = TIMEOUT) -> None:
    """Block until the server accepts connections (it loads models first), or fail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the MCP server exited with code {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"no MCP server on port {port} after {timeout} s")


class SyncMcp:
    """An MCP client session usable from plain test functions."""

    def __init__(self, target: StdioServerParameters | str, headers: dict[str, str] | None = None) -> None:
        self._stack = ExitStack()
        self._portal = self._stack.enter_context(start_blocking_portal())
        if headers is not None and isinstance(target, str):  # streamable HTTP with e.g. Authorization: Bearer
            from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

            target = streamable_http_client(target, http_client=create_mcp_http_client(headers=headers))
        client = Client(target, read_timeout_seconds=TIMEOUT)
        self.client: Client = self._stack.enter_context(self._portal.wrap_async_context_manager(client))

    def close(self) -> None:
        self._stack.close()

    def tools(self) -> list[Any]:
        return self._portal.call(self.client.list_tools).tools

    def call(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        """The structured result of a tool; an MCP error raises `MCPError`."""
        result = self._portal.call(lambda: self.client.call_tool(tool, arguments))
        assert not result.is_error, result.content
        return result.structured_content

    def resources(self, cursor: str | None = None) -> Any:
        return self._portal.call(lambda: self.client.list_resources(cursor=cursor))

    def templates(self) -> list[Any]:
        return self._portal.call(self.client.list_resource_templates).resource_templates

    def read(self, uri: str) -> str:
        return self._portal.call(lambda: self.client.read_resource(uri)).contents[0].text
