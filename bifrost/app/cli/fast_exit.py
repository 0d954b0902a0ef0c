"""Ending a finished `bifrost ask` without tearing the interpreter down.

Tearing down a process that loaded the indexes (freeing every object and module) took 0.3-0.5 s of
a cold `ask` (measured on 2 busy cores); a command that has printed its answer and closed its stores
and model processes asks for a quick exit, and the entry point then flushes the output streams
and logging and ends the process with `os._exit`. Only the console entry point (`app.main`) does
this: a test that invokes the Typer app keeps its interpreter.
"""

from __future__ import annotations

import logging
import os
import sys

_requested = False


def request() -> None:
    """Say that this command has finished its work: nothing is left to write or close."""
    global _requested
    _requested = True


def exit_if_requested(code: int) -> None:
    """End the process now with ``code`` if the command asked for it (after flushing); else return."""
    if not _requested:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be written anyway
            pass
    logging.shutdown()
    os._exit(code)
