"""Features of (question, candidate) pairs, in named groups so that ablations can drop a group.

Every feature is defined for any rulebook: channel scores normalized per question, ranks on a log
scale, entity specificity (IDF over provisions), graph evidence relative to the question's best
candidates, scores of the enclosing provisions, the candidate's shape (kind, depth, length), and the
question's style (its length, whether it is phrased as a question, the share of its words the
rulebook does not use, how far the lexical and dense channels agree), the same for every candidate
of a question, so that the model can weigh the channels per question: a foreman's text message
leans on meaning, a letter title on the regulation's own words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bifrost.core.condition_check import check_condition
from bifrost.core.quantities import Quantity
from bifrost.core.requirement_types import Condition

from bifrost.core.types import ProvisionKind
from bifrost.retrieval.channels.base import Evidence
from bifrost.retrieval.ranking.ltr.candidates import Pool
from bifrost.retrieval.navigator import NavigatorIndex

FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "lexical": ("bm25", "bm25_norm", "bm25_rank_log", "term_coverage", "term_coverage_idf"),
    "dense": ("dense", "dense_gap", "dense_rank_log"),
    "eng": (
        "entity_score",
        "entity_score_norm",
        "entity_matches",
        "entity_specificity",
        "entity_cosine",
        "triple_cosine",
    ),
    "dng": (
        "cites_seeds",
        "cited_by_seeds",
        "parent_of_seed",
        "child_of_seed",
        "seeds_in_section",
        "neighbour_base_max",
        "refs_in_log",
        "refs_out_log",
    ),
    "hierarchy": ("parent_bm25_norm", "parent_dense", "section_bm25_norm", "section_dense", "is_section"),
    "shape": (
        "kind_paragraph",
        "kind_definition",
        "kind_note",
        "kind_section",
        "kind_appendix",
        "level",
        "text_len_log",
        "empty",
    ),
    "question": ("q_terms_log", "q_unknown_share", "q_is_question", "q_channel_agreement", "q_dense_top"),
    "named": ("named_exact", "named_within", "named_any"),
    "precedent": ("prec_direct", "prec_inherited", "prec_below", "prec_rank_log", "prec_best"),
    "applicability": ("app_met", "app_not_met", "app_same_kind"),
}
AGREEMENT_DEPTH = 10
"""Top lexical and dense hits compared for `q_channel_agreement`."""
_QUESTION_START = re.compile(
    r"^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|may|might|must|shall|should|"
    r"will|would|has|have)\b|\?\s*$",
    re.I,
)
FEATURES: tuple[str, ...] = tuple(f for group in FEATURE_GROUPS.values() for f in group)
_KINDS = (
    ProvisionKind.PARAGRAPH,
    ProvisionKind.DEFINITION,
    ProvisionKind.NOTE,
    ProvisionKind.SECTION,
    ProvisionKind.APPENDIX,
)


def columns_without(groups: set[str]) -> list[int]:
    """Column indexes of every feature outside ``groups`` (for ablations)."""
    unknown = groups - set(FEATURE_GROUPS)
    if unknown:
        raise ValueError(f"unknown feature group(s) {sorted(unknown)}; known: {', '.join(FEATURE_GROUPS)}")
    return [i for i, f in enumerate(FEATURES) if not any(f in FEATURE_GROUPS[g] for g in groups)]


def featurize(ev: Evidence, pool: Pool, nav: NavigatorIndex, position: dict[str, int]) -> np.ndarray:
    """One row per candidate of ``pool``, one column per name in `FEATURES`."""
    zeros = np.zeros(len(ev.bm25), dtype=np.float32)
    b = _Batch(
        ev=ev,
        pool=pool,
        nav=nav,
        position=position,
        bm25_max=float(ev.bm25.max()) if len(ev.bm25) else 0.0,
        dense_max=float(ev.dense.max()) if len(ev.dense) else 0.0,
        ent_max=max((e.score for e in ev.entities.values()), default=0.0),
        seeds=set(pool.seeds),
        seed_sections=[nav.section.get(s, s) for s in pool.seeds],
        seed_parents={nav.parent.get(s) for s in pool.seeds},
        coverage=ev.coverage if ev.coverage is not None else zeros,
        coverage_idf=ev.coverage_idf if ev.coverage_idf is not None else zeros,
    )
    style = question_style(ev, pool)
    named = {c.target_id for c in ev.named if c.target_id is not None}
    below_votes = _votes_below(ev, nav)
    no_rank = math.log2(2 + len(ev.votes.similar))
    rows = [
        [
            *_text_columns(b, pid),
            *_entity_columns(b, pid),
            *_graph_columns(b, pid),
            *style,
            *_named_row(pid, named, nav),
            *_precedent_row(pid, ev, nav, below_votes, no_rank),
            ev.votes.best,
            *_applicability_columns(nav.conditions.get(pid, ()), ev.figures),
        ]
        for pid in pool.ids
    ]
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), len(FEATURES))


@dataclass(frozen=True)
class _Batch:
    """What every row of one question's pool is computed from."""

    ev: Evidence
    pool: Pool
    nav: NavigatorIndex
    position: dict[str, int]
    bm25_max: float
    dense_max: float
    ent_max: float
    seeds: set[str]
    seed_sections: list[str]
    seed_parents: set[str | None]
    coverage: np.ndarray
    coverage_idf: np.ndarray

    def lex(self, pid: str | None) -> tuple[float, float]:
        """BM25 score and dense cosine of a provision (0, 0 when it is not in the corpus index)."""
        i = self.position.get(pid) if pid else None
        if i is None:
            return 0.0, 0.0
        return float(self.ev.bm25[i]), float(self.ev.dense[i])


def _text_columns(b: _Batch, pid: str) -> list[float]:
    """The `lexical` and `dense` groups: scores, normalized scores, ranks, term coverage."""
    i = b.position.get(pid)
    n_docs = len(b.ev.bm25)
    bm25, dense = b.lex(pid)
    bm25_rank = int(b.pool.bm25_rank[i]) if i is not None else n_docs + 1
    dense_rank = int(b.pool.dense_rank[i]) if i is not None else n_docs + 1
    return [
        bm25,
        bm25 / b.bm25_max if b.bm25_max > 0 else 0.0,
        math.log2(1 + bm25_rank),
        float(b.coverage[i]) if i is not None else 0.0,
        float(b.coverage_idf[i]) if i is not None else 0.0,
        dense,
        b.dense_max - dense,
        math.log2(1 + dense_rank),
    ]


def _entity_columns(b: _Batch, pid: str) -> list[float]:
    """The `entity` and `triple` groups: the entity network's score, matches and cosine, the triple score."""
    e = b.ev.entities.get(pid)
    return [
        e.score if e else 0.0,
        (e.score / b.ent_max) if e and b.ent_max > 0 else 0.0,
        e.matches if e else 0,
        e.max_specificity if e else 0.0,
        e.best_cosine if e else 0.0,
        b.ev.triples.get(pid, (0.0, ""))[0],
    ]


def _graph_columns(b: _Batch, pid: str) -> list[float]:
    """The navigator graph's groups: references to and from the seeds, parent and section scores, kind,
    level and text length."""
    nav, seeds = b.nav, b.seeds
    out_refs, in_refs = nav.refs_out.get(pid, set()), nav.refs_in.get(pid, set())
    parent = nav.parent.get(pid)
    section = nav.section.get(pid, pid)
    p_bm25, p_dense = b.lex(parent)
    s_bm25, s_dense = b.lex(section)
    kind = nav.kind.get(pid)
    return [
        len(out_refs & seeds),
        len(in_refs & seeds),
        float(pid in b.seed_parents),
        float(parent in seeds),
        sum(1 for s in b.seed_sections if s == section) - float(pid in seeds),
        max((b.pool.base.get(n, 0.0) for n in nav.neighbours(pid)), default=0.0),
        math.log2(1 + len(in_refs)),
        math.log2(1 + len(out_refs)),
        p_bm25 / b.bm25_max if b.bm25_max > 0 else 0.0,
        p_dense,
        s_bm25 / b.bm25_max if b.bm25_max > 0 else 0.0,
        s_dense,
        float(section == pid),
        *(float(kind == k) for k in _KINDS),
        float(nav.level.get(pid, 0)),
        math.log2(1 + nav.text_len.get(pid, 0)),
        float(nav.text_len.get(pid, 0) == 0),
    ]


def _applicability_columns(
    conditions: Sequence[Condition], figures: Sequence[tuple[Quantity, str]]
) -> tuple[float, float, float]:
    """The `applicability` group: how many of the candidate's quantity conditions the question's figures meet,
    how many they fail, and whether it sets a threshold of a kind the question gives a figure of."""
    if not conditions or not figures:
        return 0.0, 0.0, 0.0
    status = [check_condition(c, figures)[0] for c in conditions]
    met, failed = status.count("met"), status.count("not_met")
    return float(met), float(failed), float(met + failed > 0)


def question_style(ev: Evidence, pool: Pool) -> tuple[float, ...]:
    """The `question` group: log term count, share of terms the corpus lacks, phrased as a question,
    overlap of the lexical and dense top hits, the best dense cosine."""
    n_terms, known = ev.terms
    bm25_top = set(np.flatnonzero((pool.bm25_rank <= AGREEMENT_DEPTH) & (ev.bm25 > 0)).tolist())
    dense_top = set(np.flatnonzero(pool.dense_rank <= AGREEMENT_DEPTH).tolist())
    return (
        math.log2(1 + n_terms),
        (n_terms - known) / n_terms if n_terms else 0.0,
        float(bool(_QUESTION_START.search(ev.question))),
        len(bm25_top & dense_top) / AGREEMENT_DEPTH,
        float(ev.dense.max()) if len(ev.dense) else 0.0,
    )


def _chain(pid: str, nav: NavigatorIndex) -> list[str]:
    """The ancestors of ``pid``, nearest first."""
    out: list[str] = []
    cur = nav.parent.get(pid)
    while cur is not None and len(out) < 12:
        out.append(cur)
        cur = nav.parent.get(cur)
    return out


def _named_row(pid: str, named: set[str], nav: NavigatorIndex) -> tuple[float, float, float]:
    """The `named` group but its last column: the candidate is named in the question, lies below a provision
    named there, and whether the question names any provision of the corpus."""
    if not named:
        return 0.0, 0.0, 0.0
    return float(pid in named), float(any(a in named for a in _chain(pid, nav))), 1.0


def _votes_below(ev: Evidence, nav: NavigatorIndex) -> dict[str, float]:
    """Per provision, the votes for provisions below it (a paragraph a precedent cites supports its
    section)."""
    out: dict[str, float] = {}
    for pid, w in ev.votes.direct.items():
        for a in _chain(pid, nav):
            out[a] = out.get(a, 0.0) + w
    return out


def _precedent_row(
    pid: str, ev: Evidence, nav: NavigatorIndex, below: dict[str, float], no_rank: float
) -> tuple[float, ...]:
    """The `precedent` group but its last column: votes for the candidate, for its ancestors, for its
    descendants, and the log rank of the best precedent citing it or an ancestor."""
    votes = ev.votes
    if not votes.direct:
        return 0.0, 0.0, 0.0, no_rank
    chain = _chain(pid, nav)
    ranks = [votes.cited_ids[a] for a in (pid, *chain) if a in votes.cited_ids]
    return (
        votes.direct.get(pid, 0.0),
        votes.inherited(chain),
        below.get(pid, 0.0),
        math.log2(1 + min(ranks)) if ranks else no_rank,
    )
