"""What the facade returns where no lower floor has a record for it: an entity as shown, a re-embedding and a
Neo4j export (typed, so the CLI, web app, MCP server and Python users read fields, not dictionary keys)."""

from __future__ import annotations

from pydantic import BaseModel, Field

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


class ExportReport(BaseModel):
    """Both graphs of a corpus written to Neo4j: the navigator build, the entity network's counts, the
    precedents and requirement records written, and the graph's stats as Neo4j reports them."""

    navigator: NavigatorReport
    entities: dict[str, int]
    precedents: int
    requirements: int
    stats: GraphStats
