"""One question over several corpora of a home (`ask --corpus osha-1926,adgm` or `--corpus all`).

Each corpus answers with its own retriever, ranker and refusal rule; the answers are then merged: corpora
whose answer refused add nothing; the others are ordered by how close their first cited provision is to the
question (the same embedder for every corpus, so the cosines compare, unlike the rankers' scores), and only
the closest answers, with any other as close (`NEAR_TIE`). A corpus that answers comes before one whose
closest provisions do not state it, and the merged outcome is the best of them: when one corpus answers, the
others' "not stated" adds nothing; a corpus's pointer to where similar questions were answered is said
unless it points to a corpus whose answer is kept; the verdict is kept when the corpora that give one agree,
and the answer plan keeps every answering corpus's provisions (ids ``corpus:id``). Retrieved lists are fused
by reciprocal rank. Every statement, citation and retrieved item carries its corpus, and the text marks each
citation ``[corpus id]``. When every corpus refuses, the merged answer refuses. A past edition answered from
(``--as-of``) stays the merged answer's ``edition`` when it is the only one (its ``corpus`` says whose); the
note names each corpus's past edition, as each corpus's own note does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bifrost.core.errors import BifrostError, NotFoundError
from bifrost.core.precedent_types import ResolvedCite, named_note
from bifrost.core.answer_types import (
    Answer,
    AnswerMode,
    CorpusChance,
    Elsewhere,
    Outcome,
    RetrievedItem,
    Verdict,
)
from bifrost.retrieval.fusion import rrf_fuse

if TYPE_CHECKING:  # pragma: no cover - `bifrost --help` imports this module (input rules) but not numpy
    import numpy as np

ALL = "all"
SEPARATOR = ","


def parse_corpora(spec: str, known: Sequence[str]) -> list[str]:
    """Corpus names from ``a,b`` or ``all``; one-line errors for an empty list or an unknown name."""
    if spec.strip() == ALL:
        if not known:
            raise BifrostError("no corpus ingested yet; run `bifrost ingest --corpus NAME`")
        return list(known)
    names = list(dict.fromkeys(n.strip() for n in spec.split(SEPARATOR) if n.strip()))
    if not names:
        raise BifrostError("--corpus: give a corpus name, a comma-separated list or 'all'")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise NotFoundError(f"unknown corpus {unknown[0]!r}; loaded corpora: {', '.join(known) or 'none'}")
    return names


def is_several(spec: str) -> bool:
    """Whether a corpus argument names more than one corpus."""
    return SEPARATOR in spec or spec.strip() == ALL


def closeness(question: str, answer: Answer, embed: Callable[[list[str]], np.ndarray]) -> float:
    """Cosine between the question and the first cited provision's text (-1 for a refusal)."""
    import numpy as np

    if answer.refused or not answer.citations:
        return -1.0
    first = answer.citations[0]
    q, p = embed([question, f"{first.heading} {first.text}".strip()])
    return float(np.dot(q, p) / (np.linalg.norm(q) * np.linalg.norm(p) or 1.0))


def fused_retrieved(answers: Sequence[Answer], k: int) -> list[RetrievedItem]:
    """The corpora's retrieved lists fused by reciprocal rank (keys are corpus-qualified)."""
    ranked = [[f"{it.corpus}:{it.id}" for it in a.retrieved] for a in answers]
    items = {f"{it.corpus}:{it.id}": it for a in answers for it in a.retrieved}
    return [items[key].model_copy(update={"score": round(score, 6)}) for key, score in rrf_fuse(ranked)[:k]]


RANK = {Outcome.ANSWERED: 0, Outcome.SHORTLIST: 1, Outcome.NOT_STATED: 2, Outcome.REFUSED: 3}
NEAR_TIE = 0.02
"""Answering corpora kept beside the closest: those whose first cited provision is within this cosine of
it."""
"""Merged order: corpora that state a rule, those that shortlist the likeliest, then those whose closest
provisions do not state it, then refusals."""


def merge_answers(
    question: str,
    answers: Sequence[Answer],
    embed: Callable[[list[str]], np.ndarray],
    chances: Sequence[CorpusChance] = (),
) -> Answer:
    """One answer from the per-corpus answers (see the module docstring); ``chances``: the router's
    probabilities, which order the corpora in place of the cosines (every answering corpus asked is kept:
    the router asks a second one only when it is more likely than not to hold the rule)."""
    order, kept = merge_order(question, answers, embed, chances)
    outcome = order[0].outcome if order else Outcome.REFUSED
    statements = [s.model_copy(update={"corpus": a.corpus}) for a in kept for s in a.statements]
    past = [a.edition for a in answers if a.edition is not None]
    timings: dict[str, float] = {}
    for a in answers:
        for stage, seconds in a.timings.items():
            timings[stage] = timings.get(stage, 0.0) + seconds
    named = merged_named(answers)
    pointers = still_pointing(order, kept)
    elsewhere = pointers[0] if pointers else None
    corpora = SEPARATOR.join(a.corpus for a in answers)
    text = merged_text(order, kept, statements, outcome, pointers, named, corpora)
    return Answer(
        question=question,
        corpus=SEPARATOR.join(a.corpus for a in answers),
        mode=AnswerMode.LLM if any(a.mode is AnswerMode.LLM for a in answers) else AnswerMode.EXTRACTIVE,
        refused=not kept,
        outcome=outcome,
        text=text,
        statements=statements,
        citations=[c for a in kept for c in a.citations],
        retrieved=fused_retrieved(order, max((len(a.retrieved) for a in answers), default=0)),
        unused=[f"{a.corpus}:{u}" for a in order for u in a.unused],
        timings=timings,
        verdict=merged_verdict(kept),
        plan=[
            p.model_copy(
                update={"id": f"{a.corpus}:{p.id}", "path": tuple(f"{a.corpus}:{x}" for x in p.path)}
            )
            for a in kept
            for p in a.plan
        ],
        edition=past[0] if len(past) == 1 else None,
        note="; ".join(f"{a.corpus} {a.note}" for a in answers if a.note)
        or None,  # past editions, per corpus
        named=named,
        precedents=[p for a in kept for p in a.precedents],
        conditions=[c for a in kept for c in a.conditions],
        governing=[
            g.model_copy(update={"id": f"{a.corpus}:{g.id}"})
            for a in sorted(kept, key=lambda a: -max((g.probability for g in a.governing), default=0.0))
            for g in a.governing
        ],
        related=[c for a in kept for c in a.related],
        shortlist=[s for a in kept for s in a.shortlist][:5],
        elsewhere=elsewhere,
        figures=answers[0].figures if answers else [],
        set_aside=answers[0].set_aside if answers else [],
        warnings=list(dict.fromkeys(w for a in answers for w in a.warnings)),
        routing=list(chances),
    )


def merge_order(
    question: str,
    answers: Sequence[Answer],
    embed: Callable[[list[str]], np.ndarray],
    chances: Sequence[CorpusChance] = (),
) -> tuple[list[Answer], list[Answer]]:
    """(every answer in merged order, the answers kept): by outcome (`RANK`), then by the router's probability
    or, without a router, by closeness; kept are those with the first one's outcome that did not refuse (with
    the cosines, only those within `NEAR_TIE` of the closest)."""
    chance = {c.corpus: c.probability for c in chances}
    close = (
        {id(a): chance.get(a.corpus, 0.0) if not a.refused else -1.0 for a in answers}
        if chance
        else {id(a): closeness(question, a, embed) for a in answers}
    )
    order = sorted(answers, key=lambda a: (RANK[a.outcome], -close[id(a)]))
    if not order:
        return [], []
    best = close[id(order[0])]
    # the corpus whose rules are closest answers; another only when it is as close (a near tie): a question
    # about recordkeeping is answered from the recordkeeping rules, not padded with construction rules
    tie = 1.0 if chance else NEAR_TIE
    kept = [
        a for a in order if a.outcome is order[0].outcome and not a.refused and close[id(a)] >= best - tie
    ]
    return order, kept


def still_pointing(order: Sequence[Answer], kept: Sequence[Answer]) -> list[Elsewhere]:
    """Each corpus's pointer to where similar questions were answered, in merged order, but those naming a
    corpus whose answer is kept: its rules were asked and answer here ("ask it there" would send the user to
    the answer they are reading)."""
    answering = {a.corpus for a in kept}
    return [a.elsewhere for a in order if a.elsewhere is not None and a.elsewhere.corpus not in answering]


def merged_text(
    order: Sequence[Answer],
    kept: Sequence[Answer],
    statements: Sequence,
    outcome: Outcome,
    pointers: Sequence[Elsewhere],
    named: list[ResolvedCite],
    corpora: str,
) -> str:
    """The merged answer's text: the kept corpora's statements (a shortlist under its lead line), else the
    first refusal's sentence; then where similar questions were answered (each corpus's pointer once), and the
    named provisions' note."""
    from bifrost.retrieval.answer.build import SHORTLIST_TEXT  # numpy: not at import (see above)
    from bifrost.retrieval.answer.extractive import render

    refusal = next((a.text.split("\n\n")[0] for a in order if a.refused), "")  # without its own notes
    text = refusal if not kept else render(statements)
    if kept and outcome is Outcome.SHORTLIST:
        text = f"{SHORTLIST_TEXT}\n{text}"
    for said in dict.fromkeys(p.said for p in pointers if p.said):
        if said not in text:
            text = f"{text}\n\n{said}"
    if said := named_note(named, corpora):
        text = f"{text}\n\n{said}"
    return text


def merged_named(answers: Sequence[Answer]) -> list[ResolvedCite]:
    """The provisions the question names, over every corpus: each resolution once, and a citation reported
    as not found only when no corpus holds it."""
    found = {c.written for a in answers for c in a.named if c.resolved}
    out: dict[tuple[str, str | None], ResolvedCite] = {}
    for a in answers:
        for c in a.named:
            if c.resolved or c.written not in found:
                out.setdefault((c.written, c.target_id), c)
    return list(out.values())


def merged_verdict(kept: Sequence[Answer]) -> Verdict | None:
    """The corpora's verdict when those that give one agree (its provision corpus-qualified), else none."""
    given = [(a.corpus, a.verdict) for a in kept if a.verdict is not None]
    if not given or len({v.value for _, v in given}) > 1:
        return None
    corpus, v = given[0]
    return v.model_copy(update={"provision_id": f"{corpus}:{v.provision_id}"})
