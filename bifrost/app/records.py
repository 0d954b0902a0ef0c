"""What the facade returns where no lower floor has a record for it: an entity as shown, a re-embedding, a
Neo4j export, run comparisons and the answer studies (typed, so the CLI, web app, MCP server and
Python users read fields, not dictionary keys; a study's nested figures stay the JSON document it writes)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bifrost.core.types import GraphStats, NavigatorReport


class EntityRelation(BaseModel):
    """One ``[head, relation, tail]`` triple of the entity, with the provisions it was read from."""

    head: str
    relation: str
    tail: str
    provisions: list[str]


class EntityView(BaseModel):
    """An entity of the Entity Network (found by its normalized name, else the closest by embedding), the
    provisions that mention it and its relations."""

    name: str
    label: str = ""
    asked: str = Field(description="The name as asked")
    provisions: list[str]
    relations: list[EntityRelation]


class ReembedReport(BaseModel):
    """New vectors for a stored entity network: how many of each, their dimension and the model."""

    corpus: str
    entities: int
    relation_types: int
    triples: int
    dim: int
    seconds: float
    embedding_model: str


class EncoderExport(BaseModel):
    """The home's ONNX export of the embedding model: where it is (relative to the home; empty when the model
    or the installed packages allow none), the runtime the home encodes with now, and the commands that
    re-encode vectors another runtime made (index matrices are re-encoded on their own)."""

    path: str
    runtime: str
    rebuild: list[str]


class ExportReport(BaseModel):
    """Both graphs of a corpus written to Neo4j: the navigator build, the entity network's counts, the
    precedents and requirement records written, and the graph's stats as Neo4j reports them."""

    navigator: NavigatorReport
    entities: dict[str, int]
    precedents: int
    requirements: int
    stats: GraphStats


class RunComparison(BaseModel):
    """Paired tests between two `evaluate` runs, one entry per pair of systems (metrics with Wilcoxon p, exact
    McNemar on hit@10, the questions fixed and broken)."""

    run_a: str
    run_b: str
    same_questions: bool
    comparisons: list[dict[str, Any]]


class AnswerEvaluation(BaseModel):
    """`eval answers`: the figures of `ask`'s answers and of each plan policy, by subset (all, multi-hop, each
    set), the policy chosen with each set left out, and the markdown report."""

    model_config = ConfigDict(extra="allow")

    corpus: str
    questions: int
    files: list[dict[str, str]]
    chosen: dict[str, str]
    chosen_on_all: str
    subsets: dict[str, Any]
    report: str
