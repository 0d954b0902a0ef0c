"""Serving an `MCPServer` over stdio through the SDK's public entry point, `run_stdio_async`.

Its transport (`mcp.server.stdio.stdio_server`) keeps stdout for protocol messages only: while it
serves, fds 0 and 1 point at the null device and at stderr (a library's stray output or read never
touches the protocol) and the wire is a private duplicate of each. The SDK takes streams of one's
own only on its low-level `Server`, which `MCPServer` keeps private, so the pipes are read and
written the SDK's way (through anyio's worker threads).
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer


async def serve_stdio(server: MCPServer) -> None:
    """Run ``server`` over this process's stdin and stdout until the client closes stdin."""
    sys.stdout.flush()  # what was printed before serving goes out before the SDK claims fd 1
    await server.run_stdio_async()
