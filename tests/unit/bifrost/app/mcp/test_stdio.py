"""The stdio transport's pipe reader and writer, on real pipes, and a real server process: requests
are read from the event loop line by line, replies are written whole, and stray output of tool
code never reaches the protocol stream."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading

import anyio
import pytest

from bifrost.app.mcp.stdio import CHUNK, PipeReader, PipeWriter, is_pipe
from tests.conftest import ROOT, subprocess_env


async def read_all(fd: int) -> list[str]:
    return [line async for line in PipeReader(fd)]


def test_the_reader_gives_each_line_across_chunk_boundaries_and_a_last_line_without_newline():
    r, w = os.pipe()
    os.write(w, b'{"a": 1}\n{"b":')
    os.write(w, b' 2}\n{"c": 3}')
    os.close(w)
    try:
        assert anyio.run(read_all, r) == ['{"a": 1}\n', '{"b": 2}\n', '{"c": 3}']
    finally:
        os.close(r)


def test_a_line_longer_than_a_chunk_comes_back_whole():
    r, w = os.pipe()
    line = b'{"q": "' + b"x" * (3 * CHUNK) + b'"}\n'

    def write() -> None:  # a pipe holds 64 KiB: the writer blocks until the reader has taken it
        os.write(w, line)
        os.close(w)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert anyio.run(read_all, r) == [line.decode()]
    finally:
        writer.join()
        os.close(r)


def test_the_reader_waits_on_the_event_loop_so_other_tasks_run_meanwhile():
    r, w = os.pipe()
    ran: list[str] = []

    async def main() -> str:
        async with anyio.create_task_group() as tg:
            async def other() -> None:
                await anyio.sleep(0.05)
                ran.append("other task")
                os.write(w, b'{"late": true}\n')

            tg.start_soon(other)
            return await PipeReader(r).__anext__()

    try:
        assert anyio.run(main) == '{"late": true}\n'
        assert ran == ["other task"]
    finally:
        os.close(r)
        os.close(w)


def test_bytes_that_are_not_utf8_are_replaced_not_fatal():
    r, w = os.pipe()
    os.write(w, b'{"q": "\xff"}\n')
    os.close(w)
    try:
        assert anyio.run(read_all, r) == ['{"q": "\ufffd"}\n']
    finally:
        os.close(r)


def test_the_writer_puts_a_reply_on_the_pipe_at_once():
    r, w = os.pipe()

    async def main() -> None:
        with os.fdopen(w, "wb") as wire:
            out = PipeWriter(wire)
            await out.write('{"id": 1, "text": "é"}\n')
            await out.flush()
            assert os.read(r, CHUNK) == '{"id": 1, "text": "é"}\n'.encode()

    try:
        anyio.run(main)
    finally:
        os.close(r)


def test_pipes_and_sockets_are_served_by_the_event_loop_files_are_not(tmp_path):
    r, w = os.pipe()
    a, b = socket.socketpair()
    with open(tmp_path / "requests.jsonl", "w") as f:
        try:
            assert is_pipe(r) and is_pipe(a.fileno())
            assert not is_pipe(f.fileno())
        finally:
            os.close(r), os.close(w), a.close(), b.close()


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
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "noisy", "arguments": {"word": "quiet"}}},
]


@pytest.mark.timeout(120)
def test_stray_output_of_a_tool_goes_to_stderr_and_the_wire_carries_only_protocol_messages():
    proc = subprocess.Popen([sys.executable, "-c", NOISY_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=subprocess_env(), cwd=str(ROOT), text=True)
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
