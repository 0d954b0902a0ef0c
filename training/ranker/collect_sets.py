"""Ranking groups of every training and held-out question set, each labelled with its set (and, nested,
with each set's own answers out of the precedent bank)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bifrost.eval.precedent_overlap import bank_overlap
from bifrost.eval.question_files import load_sets, read_sets, set_names
from bifrost.eval.questions import Question, merge_sets, own_answers
from bifrost.eval.splits import refuse_overlap
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.ranking.ltr.model import encoder_folder
from bifrost.training.ranker.adapted import (
    CACHE_KEEP,
    collect_adapted,
    encoder_cache,
    prune_encoders,
    store_encoder,
)
from bifrost.training.ranker.dataset import Group, collect

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings

Say = Callable[[str], None]


@dataclass
class Collected:
    """Ranking groups of the training sets and of the held-out sets, and what the card records."""

    groups: list[Group]
    held: list[Group]
    hashes: list[dict[str, str]]
    encoder_hashes: list[dict[str, str]]
    encoder: str = ""
    # set name -> groups with that set's answers out of the bank
    without: dict[str, list[Group]] = field(default_factory=dict)


def collect_sets(
    settings: Settings,
    corpus: str,
    question_files: Sequence[Path],
    held_out_files: Sequence[Path],
    encoder_files: Sequence[Path],
    folds: int,
    hybrid: bool,
    store: bool,
    say: Say,
    progress: Callable[[int, int], None] | None,
    nested: bool = False,
) -> Collected:
    """Ranking groups of every training and held-out question, each labelled with its set's name. With
    an encoder, a training question is read by an encoder that never saw its fold (its set, when several
    sets are given); a held-out question by the encoder trained on every encoder question. ``nested``: also
    collect, for each set whose answers are precedents in the bank, every group with them out of it
    (`sets_out_of_bank`), for the figures of that set left out."""
    sets = read_sets(settings, question_files, corpus, say)
    names = set_names(question_files)
    merged = merge_sets(sets, say)
    name_of = {id(qset): name for qset, name in zip(sets, names)}
    source = {q.id: name_of[id(qset)] for q, qset in merged}
    questions = [q for q, _ in merged]
    held_sets = read_sets(settings, held_out_files, corpus, say)
    held = [(q, name) for qset, name in zip(held_sets, set_names(held_out_files)) for q in qset.questions]
    _refuse_overlap(questions, held, encoder_files and load_sets(settings, encoder_files, corpus, say)[0])
    encoder_questions, encoder_hashes = (
        load_sets(settings, encoder_files, corpus, say) if encoder_files else ([], [])
    )
    resources = Resources(settings)
    out = Collected(
        [], [], [{"path": str(p), "sha256": s.sha256} for p, s in zip(question_files, sets)], encoder_hashes
    )
    try:
        cfg = RetrievalConfig.from_settings(settings)
        pipeline = AskPipeline(resources, cfg)
        parts = pipeline.parts(corpus)
        own = bank_overlap(settings, corpus, [*questions, *(q for q, _ in held)])
        if own["own_removed"]:
            n = own["own_removed"]
            say(f"{n} question(s) have their own precedent in the bank: it is left out for each")
        if encoder_files:
            parts = _collect_with_encoder(
                settings,
                corpus,
                pipeline,
                parts,
                out,
                questions,
                encoder_questions,
                source,
                names,
                folds,
                hybrid,
                store or bool(held),
                store,
                say,
                progress,
            )
        else:
            out.groups = collect(parts, questions, cfg, hybrid=hybrid, progress=progress)
            if nested:  # figures to come: each set left out with its answers out of the bank
                out.without = sets_out_of_bank(parts, questions, source, cfg, hybrid, say, progress)
        if held:
            out.held = collect(parts, [q for q, _ in held], cfg, hybrid=hybrid, progress=progress)
    finally:
        resources.close()
    _label_sources(out, source, held)
    return out


def _label_sources(out: Collected, source: dict[str, str], held: Sequence[tuple[Question, str]]) -> None:
    """Each group labelled with the name of the set its question came from."""
    for g in out.groups:
        g.source = source[g.question.id]
    held_name = {q.id: name for q, name in held}
    for g in out.held:
        g.source = held_name[g.question.id]


def sets_out_of_bank(
    parts,
    questions: Sequence[Question],
    source: dict[str, str],
    cfg: RetrievalConfig,
    hybrid: bool,
    say: Say,
    progress: Callable[[int, int], None] | None,
) -> dict[str, list[Group]]:
    """For each set whose questions are precedents in the bank (the dev letters are OSHA's own letters), every
    question's groups collected again with all of that set's precedents out of the bank: the set left out is
    then scored, and the model fitted, as if none of its answers had been published (nested: nothing behind
    its figure saw its letters). Only when several sets are given (leave-one-set-out)."""
    bank = parts.channels.precedents
    names = sorted(set(source.values()))
    if bank is None or len(names) < 2:
        return {}
    keys = {p.id for p in bank.precedents} | {p.url for p in bank.precedents if p.url}
    out: dict[str, list[Group]] = {}
    for name in names:
        hits = sorted({k for q in questions if source[q.id] == name for k in own_answers(q) if k in keys})
        if hits:
            say(
                f"{name}: its {len(hits)} answers are precedents in the bank; collecting again with them "
                "all out of it"
            )
            out[name] = collect(parts, questions, cfg, hybrid=hybrid, progress=progress, also_exclude=hits)
    return out


def _refuse_overlap(
    questions: Sequence[Question], held: Sequence[tuple[Question, str]], encoder: Sequence[Question] | bool
) -> None:
    """A held-out question must never be trained on: not in the ranker's sets, nor in the encoder's."""
    refuse_overlap(
        [q.question for q in [*questions, *(encoder or [])]], [(name, q.id, q.question) for q, name in held]
    )


def _collect_with_encoder(
    settings: Settings,
    corpus: str,
    pipeline: AskPipeline,
    parts,
    out: Collected,
    questions: Sequence[Question],
    encoder_questions: Sequence[Question],
    source: dict[str, str],
    names: Sequence[str],
    folds: int,
    hybrid: bool,
    keep_encoder: bool,
    store: bool,
    say: Say,
    progress: Callable[[int, int], None] | None,
):
    """The training groups read by encoders cross-fitted by fold (by set, when several sets are given);
    with ``keep_encoder``, the encoder trained on every encoder question is stored and the returned parts
    read with it (for the held-out sets and the stored ranker)."""
    cfg = RetrievalConfig.from_settings(settings)
    by_set = (lambda q: source[q.id]) if len(set(names)) > 1 else None
    out.groups, pairs = collect_adapted(
        pipeline, corpus, questions, encoder_questions, cfg, folds, hybrid, say, progress, fold_key=by_set
    )
    target = encoder_folder(settings, corpus)
    if keep_encoder:
        store_encoder(pipeline, corpus, pairs, target, say)
        out.encoder = str(target.relative_to(settings.home)) if store else ""
        parts = replace(
            parts, channels=parts.channels.with_ranking_dense(pipeline.dense_ranker(corpus, None, target))
        )
    keep = max(CACHE_KEEP, max(folds, len(names)) + 1)  # never this run's own encoders
    if pruned := prune_encoders(encoder_cache(settings.home, corpus), keep):
        say(f"deleted {len(pruned)} cached encoder(s) not used recently (kept {keep})")
    return parts
