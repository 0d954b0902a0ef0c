"""Serving an `MCPServer` over stdio with the SDK's `stdio_server` transport, but with the pipes
read and written from the event loop instead of through anyio's worker threads.

The SDK wraps stdin and stdout with `anyio.wrap_file`, which hands every line read, every write
and every flush to a worker thread: about six thread wake-ups per call, several ms on a busy
machine (`benchmarks/mcp_bench.py`). Here a request line is read when the event loop sees data on
the pipe, and a reply (one JSON line) is written to the pipe directly. As the SDK does with its own
streams, fds 0 and 1 point at the null device and at stderr while serving (a library's stray
output or read never touches the protocol) and the wire is a private duplicate of each. Used when
stdin is a pipe or a socket (what MCP clients give); otherwise (a file, a terminal, Windows) the
SDK's own transport serves.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from typing import BinaryIO

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

CHUNK = 1 << 16


class PipeReader:
    """The async line iterator `stdio_server` reads requests from, over a pipe's descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def __aiter__(self) -> PipeReader:
        return self

    async def __anext__(self) -> str:
        while (end := self.buffer.find(b"\n")) < 0:
            await anyio.wait_readable(self.fd)
            chunk = os.read(self.fd, CHUNK)  # ready: returns what is there without blocking
            if not chunk:  # the client closed stdin
                if not self.buffer:
                    raise StopAsyncIteration
                end = len(self.buffer) - 1
                break
            self.buffer += chunk
        line = bytes(self.buffer[: end + 1])
        del self.buffer[: end + 1]
        return line.decode("utf-8", errors="replace")


class PipeWriter:
    """The text-stream interface `stdio_server` writes replies to, written straight to the pipe: a
    reply is one JSON line, written and flushed at once (a pipe takes it, or the client is not
    reading, in which case nothing else could be answered either)."""

    def __init__(self, wire: BinaryIO) -> None:
        self.wire = wire

    async def write(self, text: str) -> int:
        return self.wire.write(text.encode("utf-8"))

    async def flush(self) -> None:
        self.wire.flush()


def is_pipe(fd: int) -> bool:
    """Whether the event loop can wait on ``fd`` (a pipe or a socket, on a POSIX system)."""
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextlib.contextmanager
def claimed(fd: int, stand_in: int) -> Iterator[int]:
    """A private duplicate of ``fd``, with ``fd`` itself pointing at ``stand_in`` meanwhile (then restored)."""
    wire = os.dup(fd)
    os.dup2(stand_in, fd)
    try:
        yield wire
    finally:
        os.dup2(wire, fd)
        os.close(wire)


async def serve_stdio(server: MCPServer) -> None:
    """Run ``server`` over this process's stdin and stdout until the client closes stdin."""
    if not (is_pipe(0) and is_pipe(1)):
        await server.run_stdio_async()
        return
    sys.stdout.flush()
    lowlevel = server._lowlevel_server  # what `run_stdio_async` runs; it takes no streams of ours
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        with claimed(0, null) as wire_in, claimed(1, 2) as wire_out, os.fdopen(os.dup(wire_out), "wb") as out:
            async with stdio_server(stdin=PipeReader(wire_in), stdout=PipeWriter(out)) as (read, write):  # type: ignore[arg-type]
                await lowlevel.run(read, write, lowlevel.create_initialization_options())
    finally:
        os.close(null)
