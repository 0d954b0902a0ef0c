"""Whether a server must check tokens: BIFROST_AUTH, and the address it binds."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Sequence

from bifrost.app.team.users import Users
from bifrost.core.access import Principal
from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def auth_required(settings: Settings, host: str, users: Users) -> bool:
    """True when tokens are checked: BIFROST_AUTH=tokens, or 'auto' on an address other than loopback.
    A server that must check tokens while no user has a live one stops with one line naming the setting."""
    mode = settings.auth
    if mode == "off":
        if not is_loopback(host):
            log.warning(
                "BIFROST_AUTH=off on %s: anyone who reaches the port may ask and read every corpus", host
            )
        return False
    if mode == "auto" and is_loopback(host):
        return False
    if not users.any():
        why = (
            "BIFROST_AUTH=tokens"
            if mode == "tokens"
            else f"serving on {host} (BIFROST_AUTH=auto checks tokens off loopback)"
        )
        raise ConfigError(
            f"{why} needs a user with a live token: `bifrost users add NAME --role admin` makes one "
            f"(or BIFROST_AUTH=off, only behind a proxy that authenticates)"
        )
    return True


def scoped_corpus(corpus: str, readable: Sequence[str], principal: Principal) -> str:
    """``corpus`` checked against the principal's scope: a name outside it is refused (`AccessDenied`) whether
    or not it exists; ``all`` becomes the corpora this principal may read here."""
    if corpus.strip() == "all":
        if not readable:
            principal.require_corpus("all")
        return ",".join(readable)
    for name in (n.strip() for n in corpus.split(",")):
        if name:
            principal.require_corpus(name)
    return corpus
