"""Signed web sessions: a cookie that carries a token's id, the session's CSRF secret and when it was made,
signed with the home's key (itsdangerous); the token's revocation and expiry are still read per request."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer

from bifrost.core.settings import Settings

COOKIE = "bifrost_session"
KEY_FILE = "secret.key"


def session_key(settings: Settings) -> str:
    """BIFROST_SECRET_KEY, else a random key made once in the home (mode 600) and read from then on."""
    if settings.secret_key is not None:
        return settings.secret_key.get_secret_value()
    path = Path(settings.home) / KEY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(48))
    return path.read_text().strip()


@dataclass(frozen=True)
class Session:
    token_id: str
    csrf: str


class Sessions:
    """Make and read session cookies; a cookie older than ``hours`` or not signed with the key reads as
    none."""

    def __init__(self, key: str, hours: float) -> None:
        self._serializer = URLSafeTimedSerializer(key, salt="bifrost-session")
        self.max_age = int(hours * 3600)

    def make(self, token_id: str) -> tuple[str, Session]:
        session = Session(token_id=token_id, csrf=secrets.token_urlsafe(24))
        return self._serializer.dumps({"t": session.token_id, "c": session.csrf}), session

    def read(self, cookie: str | None) -> Session | None:
        if not cookie:
            return None
        try:
            data = self._serializer.loads(cookie, max_age=self.max_age)
        except BadSignature:  # includes SignatureExpired
            return None
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("t"), str)
            or not isinstance(data.get("c"), str)
        ):
            return None
        return Session(token_id=data["t"], csrf=data["c"])
