"""Settings of hybrid retrieval; every component can be switched off for ablations."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bifrost.core.errors import ConfigError
from bifrost.core.settings import Settings


REMOVED = {
    "fact_search_depth": "the answer plan decides what is stated; it was read nowhere",
    "answer_lead": "answers state each cited provision by the sentence holding the asked-for fact; the "
    "setting reached only a fallback",
    "glossary": "the site-words glossary scored at or below plain RRF on every question set held out "
    "(docs/results.md, 'Tried and not kept')",
    "reader": "the cross-encoder reader read at chance on every question set left out; the decision step "
    "chooses what an answer cites (docs/results.md, 'Tried and not kept')",
}
"""Settings that did nothing and were taken out: a one-line error rather than a silent no-op."""
_PATTERNS_GONE = (
    "the sentence patterns' verdicts were right on about half the unseen questions they answered; the "
    "decision step gives verdicts (bifrost train decision; docs/results.md, 'Tried and not kept')"
)
REMOVED_VALUES = {("verdicts", "rules"): _PATTERNS_GONE, ("verdicts", "depends"): _PATTERNS_GONE}
"""Values of a kept setting that were taken out, and why."""


class RetrievalConfig(BaseModel):
    """Knobs of `HybridRetriever`. Defaults follow the BifrostRAG paper where it gives one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ranker: Literal["auto", "hybrid", "ltr"] = Field(
        default="auto",
        description="auto: the learned ranker when one is trained for the corpus (bifrost train ranker), "
        "else hybrid; "
        "hybrid: the hand-set fusion; ltr: the learned ranker, an error without one",
    )
    entity_k: int = Field(default=5, gt=0, description="Entities matched per question entity")
    entity_threshold: float = Field(default=0.5, description="Minimum cosine for an entity match")
    triple_k: int = Field(default=5, gt=0, description="Triples matched per question triple")
    triple_threshold: float = Field(default=0.5, description="Minimum cosine for a triple match")
    swap: bool = Field(default=True, description="Also match (tail, relation, head) of every question triple")
    use_eng: bool = Field(default=True, description="Use the entity network (off: lexical seeds only)")
    use_dng: bool = Field(default=True, description="Expand candidates through the navigator graph")
    use_named: bool = Field(
        default=True,
        description="Read the provisions the question names (off: an ablation; "
        "a named provision then neither leads nor is a candidate)",
    )
    use_precedents: bool = Field(
        default=True, description="Let the corpus's precedents vote (off: an ablation)"
    )
    depth: int = Field(default=2, ge=0, description="REFERS_TO hops followed from the candidates")
    parents: bool = Field(default=True, description="Add parents of candidates for context")
    children: bool = Field(default=True, description="Add children of candidates for detail")
    siblings: bool = Field(default=False, description="Add siblings of candidates for lateral relevance")
    combine: Literal["intersection", "boost"] = Field(
        default="boost",
        description="intersection: candidates = entity ∩ triple matches (the paper); boost: union, triple "
        "matches add score",
    )
    weight_by_centrality: bool = Field(
        default=True, description="Weight each question entity by its cosine with the whole question"
    )
    fallback: Literal["union", "entities", "none"] = Field(
        default="union", description="What to use when entity and triple matches do not intersect"
    )
    min_candidates: int = Field(
        default=1, ge=0, description="Fewer intersecting candidates than this triggers the fallback"
    )
    lexical_weight: float = Field(
        default=1.0,
        ge=0,
        description="Weight of BM25 seeds fused with graph seeds (0: the paper's algorithm)",
    )
    dense_weight: float = Field(
        default=0.5, ge=0, description="Weight of dense (embedding) seeds fused with graph seeds"
    )
    fusion: Literal["score", "rrf"] = Field(
        default="score",
        description="How lexical seeds join graph seeds: add scaled scores, or reciprocal rank fusion",
    )
    rrf_k: int = Field(default=60, gt=0, description="k of reciprocal rank fusion")
    order: Literal["score", "reading"] = Field(
        default="reading",
        description="score: by score; reading: each seed followed by what it cross-references",
    )
    seeds: int = Field(default=10, gt=0, description="Top candidates expanded through the navigator graph")
    top_n: int = Field(default=20, gt=0, description="Length of the ranked list returned")
    cite_max: int = Field(default=6, gt=0, description="Most provisions an answer cites")
    cite_ratio: float = Field(
        default=0.5, ge=0, le=1, description="Cite items scoring at least this share of the best"
    )
    answer_plan: str = Field(
        default="asks+exceptions+procedures+siblings+every+lists",
        pattern=r"^(?:core|(?:asks|exceptions|procedures|siblings|definitions|every|lists)(?:\+(?:asks|exceptions|procedures|siblings|definitions|every|lists))*)$",
        description="Relations the answer plan follows from the cited set (joined by +): asks (a provision "
        "for each "
        "question phrase the cited ones do not mention), exceptions, procedures (requirements incorporated "
        "by "
        "reference), siblings (cases split under one parent), definitions; every = follow those relations "
        "only for a "
        "question claiming every case (all types of ...), others are answered by the cited set; lists = a "
        "short list whose "
        "heading and one of its paragraphs rank among the top five is stated whole; core = the cited set "
        "only. Chosen by validation "
        "(bifrost eval answers)",
    )
    verdicts: Literal["every", "off"] = Field(
        default="every",
        description="Which verdict an answer without the decision step opens with: every (default) = the "
        '"no" to a claim over every case that the plan\'s rules grant for one case only; off = none. Every '
        "other verdict comes from the decision step (bifrost train decision)",
    )
    decision: Literal["auto", "off"] = Field(
        default="auto",
        description="auto: the trained decision model (bifrost train decision) chooses the governing rule, "
        "the verdict and what the answer cites before it is composed, when it was trained behind the ranker "
        "in use; off: the ranker's cited set, the answer plan and the sentence rules (as before it)",
    )
    plan_most: int = Field(default=8, gt=0, description="Most provisions an answer plan cites")
    refuse_below: float = Field(
        default=0.45, description="Refuse when the question's best cosine with any provision is below this"
    )

    @classmethod
    def from_settings(cls, settings: Settings) -> RetrievalConfig:
        """The config with the overrides of ``settings.retrieval`` (environment, .env or bifrost.toml)."""
        for name in settings.retrieval:
            if name in REMOVED:
                raise ConfigError(
                    f"retrieval setting {name!r} was removed: {REMOVED[name]} (unset "
                    f"BIFROST_RETRIEVAL__{name.upper()} "
                    "or its line in [retrieval] of bifrost.toml)"
                )
        for (name, value), why in REMOVED_VALUES.items():
            if str(settings.retrieval.get(name, "")).lower() == value:
                raise ConfigError(
                    f"retrieval setting {name!r} = {value!r} was removed: {why} (unset "
                    f"BIFROST_RETRIEVAL__{name.upper()} or its line in [retrieval] of bifrost.toml)"
                )
        try:
            return cls(**settings.retrieval)
        except ValidationError as e:
            err = e.errors()[0]
            field = ".".join(str(x) for x in err["loc"]) or "?"
            raise ConfigError(
                f"retrieval setting {field!r}: {err['msg']} (BIFROST_RETRIEVAL__{field.upper()} or "
                "[retrieval] in bifrost.toml)"
            ) from None
