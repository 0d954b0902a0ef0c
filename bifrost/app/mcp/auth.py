"""Bifrost tokens for MCP over HTTP: the SDK's `TokenVerifier` protocol over `Users.authenticate`, and the
caller of the current call, read from the SDK's per-request auth context (`get_access_token`)."""

from __future__ import annotations

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from bifrost.app.team.users import Users
from bifrost.core.access import Principal, Unauthenticated

CLAIM = "bifrost_principal"


class TokenVerifier:
    """A Bearer token to the SDK's `AccessToken`, carrying the Bifrost principal as a claim; None (the SDK
    answers 401) for an unknown, expired or revoked token. The secret itself is not kept in the record."""

    def __init__(self, users: Users) -> None:
        self.users = users

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            principal = await anyio.to_thread.run_sync(self.users.authenticate, token)
        except Unauthenticated:
            return None
        return AccessToken(
            token=principal.token_id,
            client_id=principal.user,
            scopes=[principal.role.value],
            claims={CLAIM: principal.model_dump(mode="json")},
        )


def caller() -> Principal:
    """The principal of the MCP call being served; `Unauthenticated` when the SDK let none through."""
    token = get_access_token()
    if token is None or not token.claims or CLAIM not in token.claims:
        raise Unauthenticated("authentication required: send Authorization: Bearer <token>")
    return Principal.model_validate(token.claims[CLAIM])
