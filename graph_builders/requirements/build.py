"""Requirement records of every rule sentence of a corpus, written to the SQL store beside the navigator graph
(`build navigator` runs it). A sentence that reads as a rule but whose force this reader does not know gives
no record and is counted ("N rule sentences without a requirement" in `graph stats`)."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bifrost.core.graph.base import GraphStore
from bifrost.core.requirement_types import Requirement
from bifrost.core.sentences import sentences
from bifrost.core.store.requirement_tables import replace_requirements
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.types import Provision
from bifrost.graph_builders.requirements.read import read_sentence

LOOKS_LIKE_A_RULE = re.compile(
    r"\b(shall|must|may|required|requires|prohibited|permitted|need not|apply|applies)\b", re.I
)
META_KEY = "requirements"


@dataclass(frozen=True)
class RequirementReport:
    records: int
    unread: int
    with_conditions: int
    with_exceptions: int
    seconds: float


def requirements_of(provisions: Sequence[Provision]) -> tuple[list[Requirement], int]:
    """Every requirement the corpus's rule sentences state, and how many rule-like sentences gave none."""
    out: list[Requirement] = []
    unread = 0
    for p in provisions:
        if not p.text or p.reserved:
            continue
        for i, sentence in enumerate(sentences(p.text)):
            if not LOOKS_LIKE_A_RULE.search(sentence):
                continue
            req = read_sentence(p.corpus, p.id, i, sentence)
            if req is None:
                unread += 1
            else:
                out.append(req)
    return out, unread


def build_requirements(
    sql: SqlStore, corpus: str, provisions: Sequence[Provision] | None = None, graph: GraphStore | None = None
) -> RequirementReport:
    """Read, store (and, for a graph that holds them, write) the corpus's requirement records."""
    start = time.perf_counter()
    reqs, unread = requirements_of(provisions if provisions is not None else sql.provisions(corpus))
    replace_requirements(sql, corpus, reqs)
    if graph is not None:
        graph.write_requirements(corpus, reqs)
    report = RequirementReport(
        records=len(reqs),
        unread=unread,
        with_conditions=sum(bool(r.conditions) for r in reqs),
        with_exceptions=sum(bool(r.exceptions) for r in reqs),
        seconds=round(time.perf_counter() - start, 3),
    )
    # a build's facts, not its timing
    sql.set_meta(corpus, META_KEY, {k: v for k, v in report.__dict__.items() if k != "seconds"})
    return report
