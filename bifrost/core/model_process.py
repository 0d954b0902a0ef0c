"""Models loaded in forked child processes, for a cold `bifrost ask`.

Importing torch and loading the embedding model take about 2 s, as long as loading the indexes; a
question not seen before also needs the spaCy parser (2-3 s more). Forked at the start of the
command, one child per model loads it while the parent loads the indexes (on 2 cores, real
parallelism; a thread would share the GIL), then answers the parent's requests. Each service is the same code with
the same libraries and settings as in the parent, so the results are the same (the embedder still
L2-normalizes the raw vectors in the parent, as in-process). Any failure is a `ModelProcessError`;
the caller then does the work in-process.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from typing import Any

log = logging.getLogger(__name__)

SPECULATIVE_NICE = 10  # how much lower the CPU priority of speculative loading is (os.nice increment)
REPLY_TIMEOUT_S = 600.0  # loading models on a very busy machine; a dead child answers at once (EOF)

Service = Callable[[Any], Any]
"""A request handler of the child: payload in, picklable result out."""


class ModelProcessError(RuntimeError):
    """The child could not answer (it died, failed to load that service's model, or did not answer)."""


def fork_is_safe() -> bool:
    """Whether this process may fork the child: the platform forks, no other thread runs (it could
    hold a lock the child needs), and torch is not loaded yet (its thread pools are not fork-safe;
    a process that loaded it gains nothing from a child anyway)."""
    return ("fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
            and "torch" not in sys.modules)


def _serve(conn: Connection, make: Callable[[], Service], nice: int) -> None:
    """A child: lower its CPU priority by ``nice``, build its service (loading the model), then
    answer payloads until None. A service that failed to build answers each request with its error."""
    if nice and hasattr(os, "nice"):
        os.nice(nice)
    service: Service | str
    try:
        service = make()
    except Exception as e:  # noqa: BLE001 - reported to the parent, which works in-process and says why
        service = f"{type(e).__name__}: {e}"
    while True:
        try:
            payload = conn.recv()
        except EOFError:
            return
        if payload is None:
            return
        if isinstance(service, str):
            conn.send(("error", service))
            continue
        try:
            conn.send(("ok", service(payload)))
        except Exception as e:  # noqa: BLE001 - same: the parent falls back
            conn.send(("error", f"{type(e).__name__}: {e}"))


class _Child:
    """One forked child serving one service, one request at a time."""

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process, self.conn = process, conn
        self._lock = threading.Lock()

    @classmethod
    def fork(cls, name: str, make: Callable[[], Service], nice: int) -> _Child:
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        try:
            process = ctx.Process(target=_serve, args=(child, make, nice), daemon=True, name=f"bifrost-{name}")
            process.start()
        except BaseException:
            parent.close()
            raise
        finally:
            child.close()
        return cls(process, parent)

    def call(self, payload: Any) -> Any:
        with self._lock:
            try:
                self.conn.send(payload)
                if not self.conn.poll(REPLY_TIMEOUT_S):
                    raise ModelProcessError(f"the model process did not answer within {REPLY_TIMEOUT_S:.0f} s")
                status, value = self.conn.recv()
            except (EOFError, OSError, ValueError) as e:  # ValueError: the connection was closed
                raise ModelProcessError(f"the model process ended ({type(e).__name__})") from e
        if status != "ok":
            raise ModelProcessError(f"the model process failed: {value}")
        return value

    def close(self) -> None:
        """End the child now (it writes nothing, so it may stop anywhere, even halfway through a load)."""
        self.conn.close()
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(timeout=5)


class ModelProcess:
    """Forked children that load models and answer requests to their named services (one child per
    service, so that a slow load never holds up another service)."""

    def __init__(self, children: dict[str, _Child]) -> None:
        self.children = children
        self.names = frozenset(children)
        self.failed: set[str] = set()  # services that failed once: the caller works in-process from then on

    @classmethod
    def start(cls, factories: dict[str, Callable[[], Service]], speculative: Iterable[str] = ()) -> ModelProcess | None:
        """Fork one child per service, which builds it with its factory (the same settings as the
        parent's); the ``speculative`` ones (the parent may not need them) load at a lower CPU
        priority, so that on a busy machine they do not slow the parent down. None where forking is
        not available or not safe (work stays in-process)."""
        if not fork_is_safe():
            return None
        sys.stdout.flush()  # a forked child must not inherit (and later write) buffered output
        sys.stderr.flush()
        later = frozenset(speculative)
        children: dict[str, _Child] = {}
        for name, make in factories.items():
            try:
                children[name] = _Child.fork(name, make, SPECULATIVE_NICE if name in later else 0)
            except OSError as e:
                log.info("model process for %r not started (%s); it runs in this process", name, e)
        return cls(children) if children else None

    def call(self, name: str, payload: Any) -> Any:
        """The result of service ``name`` for ``payload``, computed in its child."""
        if name not in self.children:
            raise ModelProcessError(f"no model process serves {name!r}")
        return self.children[name].call(payload)

    def close(self) -> None:
        """Stop every child."""
        for child in self.children.values():
            child.close()


def call_or_none(process: ModelProcess | None, name: str, payload: Any) -> tuple[bool, Any]:
    """(True, result) from ``process``'s service ``name``, or (False, None) when there is no process,
    no such service, or it failed: the caller then works in-process (a failure is logged in one
    line, once per service)."""
    if process is None or name not in process.names or name in process.failed:
        return False, None
    try:
        return True, process.call(name, payload)
    except ModelProcessError as e:
        process.failed.add(name)
        log.warning("%s; running %r in this process", e, name)
        return False, None
