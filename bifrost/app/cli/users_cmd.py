"""`bifrost users`: who may use a served home (add, token, revoke, remove, list). A token is printed once."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.markup import escape

from bifrost.app.cli.common import JsonOpt, emit_json, with_bifrost
from bifrost.app.cli.console import err, out
from bifrost.core.access import NewToken

users_app = typer.Typer(
    help="Users and tokens of a served home (`serve` and `mcp --transport http`).", no_args_is_help=True
)

ExpiresOpt = Annotated[
    Optional[float], typer.Option("--expires-days", help="Days the token is valid (default: until revoked)")
]


def _show_token(token: NewToken, as_json: bool) -> None:
    if as_json:
        emit_json(token.model_dump(mode="json"))
        return
    until = f", valid until {token.expires_at:%Y-%m-%d %H:%M} UTC" if token.expires_at else ""
    err.print(
        f"token {token.id} for {escape(token.user)}{until}; it is shown once, keep it now:", highlight=False
    )
    out.print(token.secret, highlight=False, soft_wrap=True)


@users_app.command("add")
def add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="User name (letters, digits, . _ @ + -)")],
    role: Annotated[
        str,
        typer.Option(
            help="reader (ask, search, read), reviewer (also review answers) or admin (also users, imports)"
        ),
    ] = "reader",
    corpus: Annotated[
        list[str],
        typer.Option(
            "--corpus", "-c", help="Corpora the user may read: repeat or 'a,b'; 'all' for every one"
        ),
    ] = ["all"],  # noqa: B006
    expires_days: ExpiresOpt = None,
    rate_limit: Annotated[
        Optional[str],
        typer.Option(help="This user's own request limit, e.g. 120/minute (default: the server's)"),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Add a user and print their first token (once: only its hash is stored)."""
    token = with_bifrost(ctx, lambda bf: bf.users.add(name, role, corpus, expires_days, rate_limit))
    _show_token(token, as_json)


@users_app.command("token")
def token(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="User name")],
    expires_days: ExpiresOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Make another token for a user (the others stay valid until revoked)."""
    _show_token(with_bifrost(ctx, lambda bf: bf.users.new_token(name, expires_days)), as_json)


@users_app.command("revoke")
def revoke(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="User name")],
    token_id: Annotated[
        Optional[str], typer.Option("--token", help="Only this token id (default: all of the user's)")
    ] = None,
) -> None:
    """Revoke a user's tokens: requests and web sessions made with them stop at once."""
    n = with_bifrost(ctx, lambda bf: bf.users.revoke(name, token_id))
    out.print(f"{escape(name)}: {n} token{'s' if n != 1 else ''} revoked", highlight=False)


@users_app.command("remove")
def remove(ctx: typer.Context, name: Annotated[str, typer.Argument(help="User name")]) -> None:
    """Remove a user and their tokens (answers they were given stay on the record)."""
    with_bifrost(ctx, lambda bf: bf.users.remove(name))
    out.print(f"{escape(name)} removed", highlight=False)


@users_app.command("list")
def list_(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Every user: role, corpora, tokens (id, created, expiry, revoked), never a secret."""
    users = with_bifrost(ctx, lambda bf: bf.users.list())
    if as_json:
        emit_json([u.model_dump(mode="json") for u in users])
        return
    for u in users:
        live = [t for t in u.tokens if t.revoked_at is None]
        limit = f"  limit {u.rate_limit}" if u.rate_limit else ""
        out.print(
            f"{escape(u.name)}  {u.role.value}  corpora {', '.join(u.corpora)}  "
            f"{len(live)} live token(s) of {len(u.tokens)}{limit}",
            highlight=False,
        )
    if not users:
        out.print("no users: `bifrost users add NAME --role admin` makes the first", highlight=False)
