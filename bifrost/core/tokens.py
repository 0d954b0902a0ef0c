"""Tokens of a served home: ``bft_<id>_<secret>``; the id finds the row, the secret is checked against an
argon2 hash (argon2-cffi), and only the hash is ever stored."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

PREFIX = "bft"
# OWASP's argon2id minimum (19 MiB, 2 passes): a token secret is 256 random bits, so the hash only has to
# make a stolen table useless, not to slow a guesser; verification is cached per process after success.
_HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


@dataclass(frozen=True)
class TokenParts:
    id: str
    secret: str


def new_token() -> tuple[str, TokenParts]:
    """A fresh token as the user sees it, and its parts."""
    parts = TokenParts(id=secrets.token_hex(6), secret=secrets.token_urlsafe(32))
    return f"{PREFIX}_{parts.id}_{parts.secret}", parts


def parse_token(token: str) -> TokenParts | None:
    """The id and secret of a well-formed token, else None (never an exception: the caller answers 401)."""
    head, sep, rest = token.strip().partition("_")
    token_id, sep2, secret = rest.partition("_")
    if head != PREFIX or not sep or not sep2 or len(token_id) != 12 or len(secret) < 20:
        return None
    if not all(c in "0123456789abcdef" for c in token_id):
        return None
    return TokenParts(token_id, secret)


def hash_secret(secret: str) -> str:
    return _HASHER.hash(secret)


def secret_matches(secret_hash: str, secret: str) -> bool:
    try:
        return _HASHER.verify(secret_hash, secret)
    except (VerificationError, InvalidHashError):
        return False
