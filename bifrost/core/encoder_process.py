"""The embedding model in a forked child process, for a cold `bifrost ask`.

Importing torch and loading the model take about 2 s, as long as loading the indexes. Forked at the
start of the command, the child does the first while the parent does the second (on 2 cores, real
parallelism; a thread would share the GIL), then encodes every text the parent sends. It runs the
same encoder code with the same torch and thread count as the parent would, so the vectors are the
same floats (the parent still L2-normalizes them, as in-process). Any failure of the child is an
`EncoderProcessError`; the embedder then encodes in-process.
"""

from __future__ import annotations

import logging
import multiprocessing
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from bifrost.core.embeddings import SentenceTransformerEmbedder

log = logging.getLogger(__name__)

REPLY_TIMEOUT_S = 600.0  # importing torch and loading the model on a very busy machine; a dead child answers at once


class EncoderProcessError(RuntimeError):
    """The child could not encode (it died, failed to load the model, or did not answer)."""


def _serve(conn: Connection, make_embedder: Callable[[], SentenceTransformerEmbedder]) -> None:
    """The child: load the model, then answer each list of texts with its raw vectors until None."""
    from bifrost.core.embeddings import raw_vectors

    embedder = model = None
    failure = ""
    try:
        embedder = make_embedder()
        model = embedder._load()
    except Exception as e:  # noqa: BLE001 - reported to the parent, which loads in-process and says why
        failure = f"{type(e).__name__}: {e}"
    while True:
        try:
            texts = conn.recv()
        except EOFError:
            return
        if texts is None:
            return
        if model is None or embedder is None:
            conn.send(("error", failure))
            continue
        try:
            conn.send(("ok", raw_vectors(model, texts, embedder.batch_size)))
        except Exception as e:  # noqa: BLE001 - same: the parent falls back
            conn.send(("error", f"{type(e).__name__}: {e}"))


class EncoderProcess:
    """A child process that loads the embedding model and encodes texts on request (one at a time)."""

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process, self.conn = process, conn
        self._lock = threading.Lock()

    @classmethod
    def start(cls, make_embedder: Callable[[], SentenceTransformerEmbedder]) -> EncoderProcess | None:
        """Fork the child, which builds its embedder with ``make_embedder`` (the same settings as the
        parent's); None where fork is not available (the parent then encodes in-process)."""
        if "fork" not in multiprocessing.get_all_start_methods():
            return None
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        sys.stdout.flush()  # a forked child must not inherit (and later write) buffered output
        sys.stderr.flush()
        try:
            process = ctx.Process(target=_serve, args=(child, make_embedder), daemon=True, name="bifrost-encoder")
            process.start()
        except OSError as e:
            log.info("embedding process not started (%s); encoding in this process", e)
            parent.close()
            return None
        finally:
            child.close()
        return cls(process, parent)

    def encode(self, texts: list[str]) -> np.ndarray:
        """The model's raw vectors of ``texts`` (not yet normalized), computed in the child."""
        with self._lock:
            try:
                self.conn.send(list(texts))
                if not self.conn.poll(REPLY_TIMEOUT_S):
                    raise EncoderProcessError(f"the embedding process did not answer within {REPLY_TIMEOUT_S:.0f} s")
                status, value = self.conn.recv()
            except (EOFError, OSError) as e:
                raise EncoderProcessError(f"the embedding process ended ({type(e).__name__})") from e
        if status != "ok":
            raise EncoderProcessError(f"the embedding process failed: {value}")
        return value

    def close(self) -> None:
        """Stop the child (asks it to end, then terminates it if it is still loading)."""
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass
        self.conn.close()
        self.process.join(timeout=0.05)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=5)
