"""Alembic's entry point: run the revisions on the connection `bifrost.core.store.schema` hands over.

Always online (a live connection in ``config.attributes["connection"]``); SQLite gets batch mode so
that later revisions can alter columns there too.
"""

from __future__ import annotations

from alembic import context

from bifrost.core.store.schema import target_metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=target_metadata(),
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
