"""Users and tokens of a home: made by an admin (`bifrost users add`), checked on every request of a
served home. A token's secret is shown once and stored as an argon2 hash; a check that succeeded once is
remembered in this process by the token's SHA-256 (so argon2 runs once per token and process), while
revocation, expiry and the user's role and scope are read from the store on every request."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from bifrost.core.access import ALL_CORPORA, NewToken, Principal, Role, Unauthenticated, User
from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.core.settings import parse_rate_limit
from bifrost.core.store import team_tables as tables
from bifrost.core.store.sql_models import utcnow
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.tokens import hash_secret, new_token, parse_token, secret_matches

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")
MAX_REMEMBERED = 10_000


def check_role(role: str) -> Role:
    try:
        return Role(role.strip().lower())
    except ValueError:
        raise BifrostError(f"unknown role {role!r}: reader, reviewer or admin") from None


def check_name(name: str) -> str:
    if not NAME.fullmatch(name or ""):
        raise BifrostError(
            f"user name {name!r}: 1 to 128 letters, digits or . _ @ + - (starting with a letter or digit)"
        )
    return name


class Users:
    """Add, list, remove users; make and revoke tokens; authenticate a token to a `Principal`."""

    def __init__(
        self, sql: SqlStore, corpora: Callable[[], list[str]], clock: Callable[[], datetime] = utcnow
    ) -> None:
        self.sql = sql
        self.corpora = corpora
        self.clock = clock
        self._verified: dict[str, str] = {}
        self._lock = threading.Lock()

    def _scope(self, corpora: Sequence[str]) -> tuple[str, ...]:
        names = [c.strip() for item in corpora for c in item.split(",") if c.strip()]
        if not names:
            raise BifrostError("--corpus: name the corpora this user may read (or 'all')")
        if any(n in ("all", ALL_CORPORA) for n in names):
            return (ALL_CORPORA,)
        known = self.corpora()
        unknown = [n for n in names if n not in known]
        if unknown:
            raise NotFoundError(
                f"unknown corpus {unknown[0]!r}; this home holds: {', '.join(known) or 'none'}"
            )
        return tuple(dict.fromkeys(names))

    def _expiry(self, days: float | None) -> datetime | None:
        if days is None:
            return None
        if days <= 0:
            raise BifrostError(f"--expires-days must be more than 0, got {days:g}")
        return self.clock() + timedelta(days=days)

    def add(
        self,
        name: str,
        role: str,
        corpora: Sequence[str],
        expires_days: float | None = None,
        rate_limit: str | None = None,
    ) -> NewToken:
        """A new user and their first token, in one transaction (a bad role, corpus or limit creates
        nothing)."""
        name, kind, scope = check_name(name), check_role(role), self._scope(corpora)
        if rate_limit is not None:
            try:
                parse_rate_limit(rate_limit)
            except ValueError as e:
                raise BifrostError(f"--rate-limit: {e}") from None
        expires = self._expiry(expires_days)
        text, parts = new_token()
        with self.sql.session() as s:
            if tables.user_exists(s, name):
                raise BifrostError(f"user {name!r} exists; `bifrost users token {name}` makes a new token")
            tables.add_user(s, name, kind, scope, rate_limit)
            s.flush()
            tables.add_token(s, parts.id, name, hash_secret(parts.secret), expires)
        return NewToken(user=name, id=parts.id, secret=text, expires_at=expires)

    def new_token(self, name: str, expires_days: float | None = None) -> NewToken:
        """Another token for an existing user (the old ones stay valid until revoked)."""
        expires = self._expiry(expires_days)
        text, parts = new_token()
        with self.sql.session() as s:
            if not tables.user_exists(s, name):
                raise NotFoundError(f"unknown user {name!r}")
            tables.add_token(s, parts.id, name, hash_secret(parts.secret), expires)
        return NewToken(user=name, id=parts.id, secret=text, expires_at=expires)

    def revoke(self, name: str, token_id: str | None = None) -> int:
        with self.sql.session() as s:
            if not tables.user_exists(s, name):
                raise NotFoundError(f"unknown user {name!r}")
            return tables.revoke_tokens(s, name, token_id)

    def remove(self, name: str) -> None:
        with self.sql.session() as s:
            if not tables.remove_user(s, name):
                raise NotFoundError(f"unknown user {name!r}")

    def list(self) -> list[User]:
        with self.sql.session() as s:
            return tables.list_users(s)

    def get(self, name: str) -> User:
        with self.sql.session() as s:
            user = tables.get_user(s, name)
        if user is None:
            raise NotFoundError(f"unknown user {name!r}")
        return user

    def any(self) -> bool:
        """Whether any user with a live token exists (a server that requires tokens needs one)."""
        now = self.clock()
        return any(
            t.revoked_at is None and (t.expires_at is None or t.expires_at > now)
            for u in self.list()
            for t in u.tokens
        )

    def authenticate(self, token: str) -> Principal:
        """The principal of a token; `Unauthenticated` (one line, never the token) when it is malformed,
        unknown, expired or revoked, or its user is gone."""
        parts = parse_token(token or "")
        if parts is None:
            raise Unauthenticated("the token is not valid")
        with self.sql.session() as s:
            found = tables.token_row(s, parts.id)
            if found is None:
                raise Unauthenticated("the token is not valid")
            row, user = found
            secret_hash, revoked, expires = row.secret_hash, row.revoked_at, tables.as_utc(row.expires_at)
            principal = Principal(
                user=user.name,
                role=Role(user.role),
                corpora=tuple(user.corpora or ()),
                token_id=row.id,
                rate_limit=user.rate_limit,
            )
        digest = hashlib.sha256(token.encode()).hexdigest()
        with self._lock:
            known = self._verified.get(digest) == parts.id
        if not known:
            if not secret_matches(secret_hash, parts.secret):
                raise Unauthenticated("the token is not valid")
            with self._lock:
                if len(self._verified) >= MAX_REMEMBERED:
                    self._verified.clear()
                self._verified[digest] = parts.id
        if revoked is not None:
            raise Unauthenticated("the token was revoked")
        if expires is not None and expires <= self.clock():
            raise Unauthenticated("the token has expired")
        return principal

    def by_token_id(self, token_id: str) -> Principal:
        """The principal of a token already checked (a web session carries the token's id, signed)."""
        with self.sql.session() as s:
            found = tables.token_row(s, token_id)
            if found is None:
                raise Unauthenticated("the session has ended: log in again")
            row, user = found
            if row.revoked_at is not None:
                raise Unauthenticated("the token of this session was revoked: log in again")
            expires = tables.as_utc(row.expires_at)
            if expires is not None and expires <= self.clock():
                raise Unauthenticated("the token of this session has expired")
            return Principal(
                user=user.name,
                role=Role(user.role),
                corpora=tuple(user.corpora or ()),
                token_id=row.id,
                rate_limit=user.rate_limit,
            )
