"""Serve the web app from several worker processes that share one copy of the models and indexes.

The parent builds the app and warms it up (models, retrievers, in-memory graphs), drops its pooled
connections, then gunicorn forks N uvicorn workers: their memory is the parent's, shared
copy-on-write, instead of N separate loads. Each worker, right after the fork, forgets the
inherited SQL pool and Neo4j driver (it opens its own) and sizes torch's threads to its share of
the CPUs. Everything loaded is frozen out of the garbage collector (`gc.freeze`), whose passes would
otherwise write to every object and so copy its page into each worker. Tokenizers' own thread pool is turned
off before any model loads, so nothing that
could hold a lock runs in a thread at fork time.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from bifrost.app.facade import Bifrost
from bifrost.app.team.policy import auth_required
from bifrost.app.web.app import create_app

log = logging.getLogger(__name__)

WORKER_CLASS = "uvicorn_worker.UvicornWorker"


def prepare_for_fork() -> None:
    """Call before any model loads: tokenizers' Rust thread pool is not fork-safe (it disables itself
    with a warning after a fork; off from the start it never exists)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def threads_per_worker(workers: int, wanted: int | None, cpus: int | None = None) -> int:
    """torch CPU threads for one worker: the configured count, at most this worker's share of the CPUs."""
    share = max(1, (cpus or os.cpu_count() or 1) // workers)
    return max(1, min(wanted, share)) if wanted else share


def after_fork(bifrost: Bifrost, workers: int) -> None:
    """In a freshly forked worker: drop connections inherited from the parent and set torch's threads."""
    bifrost.resources.release_connections(close=False)
    torch = sys.modules.get("torch")  # only if the parent loaded it: never import torch just for this
    if torch is not None:
        torch.set_num_threads(threads_per_worker(workers, bifrost.settings.embedding_threads))


def gunicorn_options(host: str, port: int, workers: int, log_level: str, timeout: int) -> dict[str, Any]:
    """The gunicorn settings, set programmatically (no config file is read)."""
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        "worker_class": WORKER_CLASS,
        "preload_app": True,
        "loglevel": log_level,
        "timeout": timeout,
        "graceful_timeout": 30,
        "keepalive": 5,
        "proc_name": "bifrost-serve",
        "control_socket_disable": True,  # gunicorn >= 25 would listen on one shared ~/.gunicorn/gunicorn.ctl
    }


def serve_workers(
    bifrost: Bifrost,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 2,
    corpora: Sequence[str] | None = None,
    warm: bool = True,
    log_level: str = "info",
    timeout: int = 120,
) -> None:
    """Build and warm the app once, then serve it from ``workers`` forked processes until stopped."""
    from gunicorn.app.base import BaseApplication

    prepare_for_fork()
    app = create_app(bifrost, corpora, auth_required(bifrost.settings, host, bifrost.users))
    if warm:
        log.info("warm-up done: %s", app.state.web.warm_up())
    bifrost.resources.release_connections(close=True)  # the parent keeps no connection a worker could inherit
    gc.collect()
    # loaded objects leave the collector's view, so its passes do not copy their pages in every worker
    gc.freeze()

    class PreforkServer(BaseApplication):
        def load_config(self) -> None:
            for key, value in gunicorn_options(host, port, workers, log_level, timeout).items():
                if key in self.cfg.settings:  # a setting older gunicorns lack is left out
                    self.cfg.set(key, value)
            self.cfg.set("post_fork", lambda server, worker: after_fork(bifrost, workers))

        def load(self) -> Any:
            return app

    PreforkServer().run()
