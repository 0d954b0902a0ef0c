"""`ReadToolRunner`: over stdio the quick read tools run on the event loop's own thread (no hand-off to a
worker thread), over HTTP in a worker thread; a Bifrost error is an MCP error either way."""

from __future__ import annotations

import threading

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from bifrost.app.mcp.server import ReadToolRunner
from bifrost.core.errors import NotFoundError


def thread_of(read: ReadToolRunner) -> tuple[threading.Thread, threading.Thread]:
    async def main() -> tuple[threading.Thread, threading.Thread]:
        return threading.current_thread(), await read(threading.current_thread)

    return anyio.run(main)


def test_inline_reads_run_on_the_event_loop_thread():
    loop, ran = thread_of(ReadToolRunner(inline=True))
    assert ran is loop


def test_other_reads_run_in_a_worker_thread():
    loop, ran = thread_of(ReadToolRunner(inline=False))
    assert ran is not loop


@pytest.mark.parametrize("inline", [True, False])
def test_a_bifrost_error_becomes_an_mcp_error_with_its_message(inline):
    def missing(pid: str) -> None:
        raise NotFoundError(f"provision {pid!r} is not in corpus 'mini'")

    with pytest.raises(MCPError) as info:
        anyio.run(ReadToolRunner(inline), missing, "1926.999")
    assert info.value.error.message == "provision '1926.999' is not in corpus 'mini'"
    assert info.value.error.data == {"error": "not_found"}
