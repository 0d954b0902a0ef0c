"""Models loaded in a forked child process, for a cold `bifrost ask`.

Importing torch and loading the embedding model take about 2 s, as long as loading the indexes; a
question not seen before also needs the spaCy parser (2-3 s more). Forked at the start of the
command, the child loads these while the parent loads the indexes (on 2 cores, real parallelism;
a thread would share the GIL), then answers the parent's requests. Each service is the same code with
the same libraries and settings as in the parent, so the results are the same (the embedder still
L2-normalizes the raw vectors in the parent, as in-process). Any failure is a `ModelProcessError`;
the caller then does the work in-process.
"""

from __future__ import annotations

import logging
import multiprocessing
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

log = logging.getLogger(__name__)

REPLY_TIMEOUT_S = 600.0  # loading models on a very busy machine; a dead child answers at once (EOF)

Service = Callable[[Any], Any]
"""A request handler of the child: payload in, picklable result out."""


class ModelProcessError(RuntimeError):
    """The child could not answer (it died, failed to load that service's model, or did not answer)."""


def fork_is_safe() -> bool:
    """Whether this process may fork the child: the platform forks, no other thread runs (it could
    hold a lock the child needs), and torch is not loaded yet (its thread pools are not fork-safe;
    a process that loaded it gains nothing from a child anyway)."""
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and "torch" not in sys.modules
    )


def _serve(conn: Connection, factories: dict[str, Callable[[], Service]]) -> None:
    """The child: build every service in order (loading its model), then answer (name, payload)
    requests until None. A service that failed to build answers each request with its error."""
    services: dict[str, Service | str] = {}
    for name, make in factories.items():
        try:
            services[name] = make()
        except Exception as e:  # noqa: BLE001 - reported to the parent, which works in-process and says why
            services[name] = f"{type(e).__name__}: {e}"
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        name, payload = request
        service = services.get(name, f"no service {name!r}")
        if isinstance(service, str):
            conn.send(("error", service))
            continue
        try:
            conn.send(("ok", service(payload)))
        except Exception as e:  # noqa: BLE001 - same: the parent falls back
            conn.send(("error", f"{type(e).__name__}: {e}"))


class ModelProcess:
    """A forked child that loads models and answers requests to its named services, one at a time.

    A cold `ask` starts one per service (`ModelProcesses`): the spaCy child loads without torch
    (`torch_hidden`), so torch is still imported once, in the embedding model's child."""

    def __init__(self, process: Any, conn: Connection, names: frozenset[str]) -> None:
        self.process, self.conn, self.names = process, conn, names
        self.failed: set[str] = set()  # services that failed once: the caller works in-process from then on
        self._lock = threading.Lock()

    @classmethod
    def start(cls, factories: dict[str, Callable[[], Service]]) -> ModelProcess | None:
        """Fork the child, which builds each service with its factory, in order (the same settings
        as the parent's); None where forking is not available or not safe (work stays in-process)."""
        if not fork_is_safe():
            return None
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        sys.stdout.flush()  # a forked child must not inherit (and later write) buffered output
        sys.stderr.flush()
        try:
            process = ctx.Process(target=_serve, args=(child, factories), daemon=True, name="bifrost-models")
            process.start()
        except OSError as e:
            log.info("model process not started (%s); models load in this process", e)
            parent.close()
            return None
        finally:
            child.close()
        return cls(process, parent, frozenset(factories))

    def call(self, name: str, payload: Any) -> Any:
        """The result of service ``name`` for ``payload``, computed in the child."""
        with self._lock:
            try:
                self.conn.send((name, payload))
                if not self.conn.poll(REPLY_TIMEOUT_S):
                    raise ModelProcessError(
                        f"the model process did not answer within {REPLY_TIMEOUT_S:.0f} s"
                    )
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


class ModelProcesses:
    """One forked child per service, answering as one `ModelProcess` does: a cold `ask` of a new question
    parses it (spaCy, without torch: see `torch_hidden`) in one child while another imports torch and loads
    the embedding model, so neither waits for the other (2 cores: real parallelism)."""

    def __init__(self, children: dict[str, ModelProcess]) -> None:
        self.children = children
        self.names = frozenset(children)
        self.failed: set[str] = set()

    @classmethod
    def start(cls, factories: dict[str, Callable[[], Service]]) -> ModelProcesses | None:
        """Fork a child per factory (in the given order); None where forking is not safe. A child that
        cannot be forked leaves its service to this process."""
        children: dict[str, ModelProcess] = {}
        for name, make in factories.items():
            if (child := ModelProcess.start({name: make})) is not None:
                children[name] = child
        return cls(children) if children else None

    def call(self, name: str, payload: Any) -> Any:
        return self.children[name].call(name, payload)

    def close(self) -> None:
        for child in self.children.values():
            child.close()


def call_or_none(process: ModelProcess | ModelProcesses | None, name: str, payload: Any) -> tuple[bool, Any]:
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
