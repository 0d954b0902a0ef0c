"""Requirement records: a rule sentence read into its force, who it binds, its conditions (quantities with
their thresholds) and its exceptions (inline, or by reference to another provision), as they cross module
boundaries (issue 45). Built with the navigator graph; read by answers that must not contradict the text."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

STATES = "STATES"  # the edge from a provision to each requirement it states, as graph stats count it

Force = Literal[
    "must", "must_not", "may", "may_not", "need_not", "not_required", "does_not_apply", "required"
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Condition(_Frozen):
    """A quantity the rule turns on: as written, what it measures when the words say, and its threshold."""

    text: str
    comparator: str = Field(description='">=", "<=", ">", "<", or "" for a plain figure')
    value: float
    unit: str = Field(description="pint's name of the unit as written")
    magnitude: float | None = Field(
        default=None, description="In base units; None when pint cannot convert it"
    )
    dimension: str = ""
    measure: str = Field(
        default="", description="height, depth, distance, width, length, time, ... when the words say"
    )
    start: int = 0
    end: int = 0


class ExceptionClause(_Frozen):
    """An exception: its cue ("except", "unless", "need not", "does not apply", "subject to", ...), inline or
    by reference, and the clause it opens."""

    cue: str
    kind: Literal["inline", "reference"]
    text: str
    start: int = 0


class Requirement(_Frozen):
    """One rule sentence of a provision, read."""

    corpus: str
    provision_id: str
    sentence: int
    text: str
    force: Force
    who: str = ""
    conditions: tuple[Condition, ...] = ()
    exceptions: tuple[ExceptionClause, ...] = ()

    @property
    def uid(self) -> str:
        return f"{self.corpus}:{self.provision_id}#{self.sentence}"
