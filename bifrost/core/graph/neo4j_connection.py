"""The connection half of the Neo4j GraphStore: the driver opened on first use, the schema created once per
object (``IF NOT EXISTS``: safe any number of times), reads and writes with driver failures turned into
`StoreError` naming the server, ``UNWIND`` batches, and an atomic block. `neo4j_store.Neo4jGraphStore` adds
the graph on top."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Self

from bifrost.core.errors import StoreError
from bifrost.core.graph import neo4j_queries as q
from bifrost.core.graph.neo4j_rows import chunks

if TYPE_CHECKING:  # pragma: no cover
    from neo4j import Driver

    from bifrost.core.settings import Settings

log = logging.getLogger(__name__)


class Neo4jConnection:
    """A Neo4j 5.26 server through the official driver: opened on first use, its schema created once, reads
    and writes with driver failures turned into `StoreError`, rows written in batches, an atomic block.

    Args:
        uri: Bolt URI, e.g. ``bolt://127.0.0.1:7687``.
        user, password: credentials; an empty password means the server runs without auth.
        database: database name (``neo4j`` on Community Edition).
        batch_size: rows per ``UNWIND`` write transaction.
        embedding_dim: dimension of entity embeddings (entity vector index).
        triple_dim: dimension of triple embeddings; default ``3 * embedding_dim`` (``[h, r, t]``).
        connection_timeout: seconds to wait for a connection before giving up.

    The constructor does no I/O: the driver is opened and the schema created on first use.
    """

    def __init__(
        self,
        uri: str,
        user: str = "neo4j",
        password: str = "",
        database: str = "neo4j",
        batch_size: int = 1000,
        embedding_dim: int = 384,
        triple_dim: int | None = None,
        connection_timeout: float = 10.0,
    ) -> None:
        if not uri or "://" not in uri:
            raise StoreError(f"Neo4j URI {uri!r} is not a URI; expected e.g. bolt://127.0.0.1:7687")
        if batch_size <= 0:
            raise ValueError(f"batch_size must be > 0, got {batch_size}")
        if embedding_dim <= 0 or (triple_dim is not None and triple_dim <= 0):
            raise ValueError(f"embedding dimensions must be > 0, got {embedding_dim} and {triple_dim}")
        self.uri = uri
        self.user = user
        self.password = password
        self.database = database
        self.batch_size = batch_size
        self.embedding_dim = embedding_dim
        self.triple_dim = triple_dim if triple_dim is not None else 3 * embedding_dim
        self.connection_timeout = connection_timeout
        self._driver: Driver | None = None
        self._schema_ready = False
        self._tx: Any = None

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> Self:
        """A store configured by ``BIFROST_NEO4J_*`` settings."""
        if not settings.neo4j_uri:
            raise StoreError(
                "BIFROST_NEO4J_URI is not set; e.g. bolt://127.0.0.1:7687 (see docker/neo4j-launcher)"
            )
        return cls(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.neo4j_password,
            settings.neo4j_database,
            embedding_dim=settings.embedding_dim,
            **kwargs,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.uri!r}, database={self.database!r})"

    # --- connection --------------------------------------------------------------------------

    def _fail(self, e: Exception, doing: str) -> StoreError:
        from neo4j.exceptions import AuthError, ServiceUnavailable

        first = (str(getattr(e, "message", None) or e).strip().splitlines() or [""])[0]
        if isinstance(e, ServiceUnavailable):
            hint = "is it running? start one with docker/neo4j-launcher/start.sh or set BIFROST_NEO4J_URI"
            msg = f"cannot reach Neo4j at {self.uri} while {doing}: {first} ({hint})"
        elif isinstance(e, AuthError):
            msg = f"Neo4j at {self.uri} refused the credentials of user {self.user!r} while {doing}: {first}"
        else:
            msg = (
                f"Neo4j at {self.uri} (database {self.database!r}) failed while {doing}: "
                f"{type(e).__name__}: {first}"
            )
        err = StoreError(msg)
        err.uri = self.uri  # type: ignore[attr-defined]
        return err

    @property
    def driver(self) -> Driver:
        """The driver, opened (and connectivity checked, without retries) on first use."""
        if self._driver is None:
            from neo4j import GraphDatabase
            from neo4j.exceptions import DriverError, Neo4jError

            auth = (self.user, self.password) if self.password else None
            try:
                driver = GraphDatabase.driver(self.uri, auth=auth, connection_timeout=self.connection_timeout)
            except (DriverError, Neo4jError, ValueError) as e:
                raise self._fail(e, "opening the driver") from e
            try:
                driver.verify_connectivity()
            except (DriverError, Neo4jError, OSError) as e:
                driver.close()
                raise self._fail(e, "connecting") from e
            self._driver = driver
        return self._driver

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        from neo4j.exceptions import DriverError, Neo4jError

        try:
            yield
        except StoreError:
            raise
        except (DriverError, Neo4jError, OSError) as e:
            raise self._fail(e, doing) from e

    def _read(self, cypher: str, doing: str, **params: Any) -> list[Any]:
        self.ensure_schema()
        if self._tx is not None:
            with self._errors(doing):
                return list(self._tx.run(cypher, params))
        with self._errors(doing), self.driver.session(database=self.database) as s:
            return s.execute_read(lambda tx: list(tx.run(cypher, params)))

    def _write(self, cypher: str, doing: str, **params: Any) -> list[Any]:
        self.ensure_schema()
        if self._tx is not None:
            with self._errors(doing):
                return list(self._tx.run(cypher, params))
        with self._errors(doing), self.driver.session(database=self.database) as s:
            return s.execute_write(lambda tx: list(tx.run(cypher, params)))

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One explicit Neo4j transaction for every read and write in the block (committed at its end)."""
        if self._tx is not None:  # nested: part of the outer block
            yield
            return
        self.ensure_schema()
        with self._errors("opening a transaction"):
            session = self.driver.session(database=self.database)
            tx = session.begin_transaction()
        self._tx = tx
        try:
            yield
            with self._errors("committing a transaction"):
                tx.commit()
        finally:
            self._tx = None
            if tx.closed() is False:
                tx.rollback()
            session.close()

    def _write_batches(self, query: str, rows: Sequence[dict[str, Any]], doing: str) -> int:
        written = 0
        for chunk in chunks(rows, self.batch_size):
            records = self._write(query, doing, rows=list(chunk))
            written += int(records[0]["written"] or 0) if records else 0
        return written

    def ensure_schema(self) -> None:
        """Create constraints and indexes if missing (idempotent); checks vector dimensions."""
        if self._schema_ready:
            return
        with self._errors("creating the schema"), self.driver.session(database=self.database) as s:
            for stmt in q.SCHEMA_STATEMENTS:
                s.run(stmt).consume()
            s.run(q.CREATE_ENTITY_VECTOR_INDEX, dimensions=self.embedding_dim).consume()
            s.run(q.CREATE_TRIPLE_VECTOR_INDEX, dimensions=self.triple_dim).consume()
            want = {q.ENTITY_VECTOR_INDEX: self.embedding_dim, q.TRIPLE_VECTOR_INDEX: self.triple_dim}
            for rec in s.run(q.SHOW_VECTOR_INDEXES, names=list(want)):
                if rec["dimensions"] is not None and int(rec["dimensions"]) != want[rec["name"]]:
                    raise StoreError(
                        f"Neo4j at {self.uri}: vector index {rec['name']} has dimension {rec['dimensions']}, "
                        f"this store writes {want[rec['name']]}; drop the index (DROP INDEX {rec['name']}) "
                        "or configure the matching embedding dimension"
                    )
        self._schema_ready = True

    def release_connections(self, close: bool = True) -> None:
        """Drop the driver (reopened on next use); ``close=False`` in a forked worker forgets the
        parent's driver without closing its sockets, which the parent still owns."""
        if close:
            self.close()
            return
        self._driver = None
        self._tx = None
        self._schema_ready = False

    def close(self) -> None:
        if self._driver is not None:
            self._driver.close()
            self._driver = None
        self._schema_ready = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
