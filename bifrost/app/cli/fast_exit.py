"""Ending a finished `bifrost ask` without tearing the interpreter down.

Tearing down a process that loaded the indexes (freeing every object and module) took 0.3-0.5 s of
a cold `ask` (measured on 2 busy cores); a command that has printed its answer and closed its stores
and model processes asks for a quick exit, and the entry point then flushes the output streams
and logging and ends the process with `os._exit`. Only the console entry point (`app.main`) does
this: it hands its `FastExit` to the command line as the context's initial object, which the root
callback keeps in the context's meta (`attach`) for commands to find (`of`). A test that invokes
the Typer app gives none, so its commands ask a `FastExit` nobody acts on and it keeps its interpreter.
"""

from __future__ import annotations

import logging
import os
import sys

import click

META_KEY = "bifrost.fast_exit"
"""Where `attach` keeps a run's `FastExit` in the click context's meta (shared by nested contexts)."""


class FastExit:
    """Whether the command of one run has finished its work and the process may end without teardown."""

    def __init__(self) -> None:
        self.requested = False

    def request(self) -> None:
        """Say that the command has finished its work: nothing is left to write or close."""
        self.requested = True

    def exit_if_requested(self, code: int) -> None:
        """End the process now with ``code`` if the command asked for it (after flushing); else return."""
        if not self.requested:
            return
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing more can be written anyway
                pass
        logging.shutdown()
        os._exit(code)


def attach(ctx: click.Context, fast_exit: FastExit) -> None:
    """Keep ``fast_exit`` for the commands run under ``ctx`` (see `of`)."""
    ctx.meta[META_KEY] = fast_exit


def of(ctx: click.Context) -> FastExit:
    """The `FastExit` of the run ``ctx`` belongs to (a new one, that nobody acts on, when none was
    attached)."""
    return ctx.meta.setdefault(META_KEY, FastExit())
