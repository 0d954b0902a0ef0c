"""Addresses of provisions as MCP resources (``bifrost://{corpus}/{provision_id}``) and the
opaque cursor of the paginated resource listing."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bifrost.app.inputs import InvalidRequest

SCHEME = "bifrost"
TEMPLATE = f"{SCHEME}://{{corpus}}/{{provision_id}}"


def provision_uri(corpus: str, provision_id: str) -> str:
    """The resource URI of a provision; ids are percent-encoded (they hold parentheses, brackets, spaces)."""
    return f"{SCHEME}://{quote(corpus, safe='')}/{quote(provision_id, safe='')}"


class Cursor(BaseModel):
    """Where the next page of the listing starts: a corpus and an offset in its document order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    corpus: str
    offset: int = Field(ge=0)

    def encode(self) -> str:
        return base64.urlsafe_b64encode(self.model_dump_json().encode()).decode().rstrip("=")

    @classmethod
    def decode(cls, token: str) -> Cursor:
        """The cursor a previous page returned, or `InvalidRequest` for anything else."""
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            return cls.model_validate(json.loads(raw))
        except (ValueError, ValidationError) as e:
            raise InvalidRequest(
                f"cursor {token[:40]!r} is not one this server returned; list again without a cursor"
            ) from e
