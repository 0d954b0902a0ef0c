"""Alembic revisions of the SQL store, oldest first (``0001_initial`` = the schema of the first release)."""
