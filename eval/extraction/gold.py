"""The gold annotation format: one JSON object per provision, entities and triples by hand."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bifrost.core.errors import SourceParseError


class GoldProvision(BaseModel):
    """Entities and ``[head, relation, tail]`` triples an annotator found in one provision."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    corpus: str
    provision_id: str
    subpart: str = Field(description="Subpart letter, e.g. 'M'; the unit of micro-averaging")
    text: str = Field(default="", description="Short quote of the provision, for the reader")
    entities: tuple[str, ...]
    triples: tuple[tuple[str, str, str], ...] = ()

    @model_validator(mode="after")
    def _triple_arguments_are_entities(self) -> GoldProvision:
        names = set(self.entities)
        missing = sorted({n for h, _, t in self.triples for n in (h, t) if n not in names})
        if missing:
            raise ValueError(f"triple arguments not listed in entities: {missing}; add them to 'entities'")
        return self


def load_gold(path: Path) -> list[GoldProvision]:
    """Read a gold JSONL file; a bad line or a repeated provision raises `SourceParseError`."""
    path = Path(path)
    out: list[GoldProvision] = []
    seen: set[tuple[str, str]] = set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise SourceParseError(path, f"cannot read gold file: {e}") from e
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            g = GoldProvision.model_validate(json.loads(line))
        except json.JSONDecodeError as e:
            raise SourceParseError(path, f"line {n}: not JSON: {e}") from e
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(x) for x in err["loc"]) or "record"
            raise SourceParseError(path, f"line {n}: {where}: {err['msg']}") from e
        key = (g.corpus, g.provision_id)
        if key in seen:
            raise SourceParseError(
                path, f"line {n}: provision {g.provision_id!r} annotated twice; keep one line"
            )
        seen.add(key)
        out.append(g)
    if not out:
        raise SourceParseError(path, "no gold provisions; expected one JSON object per line")
    return out
