"""`bifrost db status` and `bifrost db upgrade`: the SQL store's schema revision, and its migration."""

from __future__ import annotations

from typing import Annotated

import typer

from bifrost.app.cli.common import JsonOpt, emit_json, with_bifrost
from bifrost.app.cli.console import out

db_app = typer.Typer(help="The SQL store's schema (migrations).", no_args_is_help=True)


@db_app.command("status")
def db_status_cmd(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Show the database's schema revision and this Bifrost's newest (BIFROST_DATABASE_URL, else the home's
    SQLite)."""
    st = with_bifrost(ctx, lambda bf: bf.db_status())
    if as_json:
        emit_json({**st.model_dump(), "up_to_date": st.up_to_date})
        return
    state = "up to date" if st.up_to_date else f"behind: run `bifrost db upgrade` (newest {st.head})"
    out.print(f"{st.where}: schema revision {st.current or 'none'}, {state}", markup=False)


@db_app.command("upgrade")
def db_upgrade_cmd(
    ctx: typer.Context,
    revision: Annotated[str, typer.Option(help="Target revision (default: the newest)")] = "head",
    as_json: JsonOpt = False,
) -> None:
    """Create or migrate the SQL store's schema to this Bifrost's revision (needed for a shared PostgreSQL
    after an upgrade of Bifrost; SQLite homes are upgraded when opened). Safe to run again."""
    before, after = with_bifrost(ctx, lambda bf: bf.db_upgrade(revision))
    if as_json:
        emit_json(
            {"where": after.where, "before": before.current, "after": after.current, "head": after.head}
        )
        return
    if before.current == after.current:
        out.print(f"{after.where}: already at schema revision {after.current}", markup=False)
    else:
        out.print(
            f"{after.where}: schema revision {before.current or 'none'} -> {after.current}", markup=False
        )
