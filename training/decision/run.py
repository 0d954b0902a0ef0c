"""`bifrost train decision`: the governing-rule selector, its calibration and the verdict classifiers,
validated leave-one-set-out and nested, then fitted behind the stored ranker and kept in the home.

Nested: for each set left out, the ranker is refitted without it (the stored ranker's sets less that one), the
selector and verdict models are fitted on the other sets ranked by rankers that never saw them either (less
the set left out, less their own), and every threshold is chosen out of fold on those sets alone. The set left
out is then answered as `ask` answers it, beside the answer without the decision (same ranker, same refusal
gate), and scored: the governing rule against the gold and decisive labels, the calibration, the answer's
citations and its verdicts. Figures are means over seeds (LightGBM's, for every ranker and classifier)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.errors import BifrostError
from bifrost.core.extras import require_extra
from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.eval.question_files import load_questions_by_file, set_names
from bifrost.eval.questions import own_answers
from bifrost.retrieval.answer.planner import policy_of
from bifrost.retrieval.answer.decision_model import DecisionCard, DecisionModel, calibrated
from bifrost.retrieval.answer.governing import FEATURES
from bifrost.retrieval.answer.verdict_features import VERDICT_FEATURES
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.ranking.ltr.features import FEATURES as RANKER_FEATURES
from bifrost.retrieval.ranking.ltr.model import RankerModel, load_ranker, ranker_sha256
from bifrost.training.decision import fit as F
from bifrost.training.decision.cases import Case, Gathered, Rankers, case_of, gather
from bifrost.training.decision.score import Scored, score_case, summarize

Say = Callable[[str], None]
Progress = Callable[[int, int], None]


@dataclass
class Fitted:
    """A decision model fitted on some cases, and the choices made out of fold on them."""

    selector: Any
    calibration: dict[str, list[float]]
    cite: F.CiteChoice
    verdicts: dict[str, Any]
    margins: dict[str, float]
    order: str = "selector"
    governing: dict[str, list[float]] = field(default_factory=dict)
    state_bar: float = F.NEVER

    def choices(self) -> dict[str, Any]:
        return {
            "state_bar": self.state_bar,
            "cite_also": self.cite.cite_also,
            "plan": self.cite.plan,
            "margins": self.margins,
            "order": self.order,
        }

    def model(self, corpus: str, ranker_sha: str) -> DecisionModel:
        card = DecisionCard(
            corpus=corpus,
            ranker_sha256=ranker_sha,
            features=list(FEATURES),
            verdict_features=list(VERDICT_FEATURES),
            calibration=self.calibration,
            cite_also=self.cite.cite_also,
            verdict_margins=dict(self.margins),
            plan=self.cite.plan,
            order=self.order,
            governing_calibration=self.governing,
            state_bar=self.state_bar,
        )
        return DecisionModel(
            self.selector, {k: v for k, v in self.verdicts.items() if k in self.margins}, card
        )


@dataclass
class DecisionReport:
    corpus: str
    seeds: list[int]
    left_out: dict[str, Any] = field(default_factory=dict)  # set -> figures (seed means and per seed)
    final: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    model_path: str = ""


class Trainer:
    """What one run shares: the pipeline, the gathered questions, the rankers per seed."""

    def __init__(
        self, pipe: AskPipeline, corpus: str, cfg: RetrievalConfig, gathered: list[Gathered]
    ) -> None:
        self.pipe, self.corpus, self.cfg, self.gathered = pipe, corpus, cfg, gathered
        self._cases: dict[tuple[str, frozenset[str], int], Case] = {}

    def cases(
        self, sources: Sequence[str], rankers: Rankers, out: Sequence[str], own_out: bool
    ) -> list[Case]:
        """The questions of ``sources``, each ranked by a ranker fitted without ``out`` (and without its own
        set when ``own_out``)."""
        got = []
        for g in self.gathered:
            if g.source not in sources:
                continue
            kept, model = rankers.without({*out, g.source} if own_out else set(out))
            key = (g.question.id + "\0" + g.source, kept, rankers.seed)
            if key not in self._cases:
                self._cases[key] = case_of(self.pipe, self.corpus, g, model, self.cfg)
            got.append(self._cases[key])
        return got

    def planned(self, case: Case, cited: list[str], plan: str) -> list[str]:
        """The provisions an answer citing ``cited`` under ``plan`` cites (those with text)."""
        planner = self.pipe.planner(self.corpus)
        lookup = self.pipe.lookup(self.corpus)
        policy = policy_of(self.cfg, plan)
        items = planner.plan(case.question.question, case.result, self.cfg, lookup, core=cited, policy=policy)
        return [p.id for p in items if (pv := lookup(p.id)) is not None and pv.text.strip()]

    def fit(self, cases: list[Case], seed: int) -> Fitted:
        """Selector, calibration, citing and verdicts, every choice out of fold on ``cases``."""
        raw = F.out_of_fold(cases, lambda cs: F.fit_selector(cs, seed), lambda b, c: F.margins(b, c.rows))
        labels = np.concatenate([c.labels for c in cases])
        calibration = F.calibration_of(np.concatenate(raw), labels)
        probs = [calibrated(r, calibration) for r in raw]
        order = F.choose_order(cases, probs)
        governing = F.governing_calibration(cases, raw, probs, order)
        bar = F.choose_state_bar(F.governing_hits(cases, raw, probs, order, governing))
        cite = F.choose_citing(cases, probs, self.planned, order)
        labelled = [
            i
            for i, c in enumerate(cases)
            if c.verdict and c.inputs.facts.stance.answerable_yes_no and len(c.ids)
        ]
        vx = {id(cases[i]): F.verdict_x(cases[i], probs[i], order) for i in labelled}
        vcases = [cases[i] for i in labelled]
        scores = F.out_of_fold(
            vcases,
            lambda cs: F.fit_verdicts([vx[id(c)] for c in cs], [c.verdict for c in cs], seed),
            lambda m, c: F.verdict_margins(m, vx[id(c)]),
        )
        nameable = [F.nameable_depends(cases[i], probs[i], order) for i in labelled]
        margins = F.choose_margins(scores, [c.verdict for c in vcases], nameable)
        verdicts = F.fit_verdicts([vx[id(c)] for c in vcases], [c.verdict for c in vcases], seed)
        selector = F.fit_selector(cases, seed)
        return Fitted(selector, calibration, cite, verdicts, margins, order, governing, bar)

    def validate(self, left: str, train: Sequence[str], rankers: Rankers, seed: int) -> dict[str, Any]:
        """The figures of set ``left`` answered by a decision fitted on ``train`` (each ranked by a ranker
        that saw neither it nor ``left``), ``left`` ranked by a ranker that never saw it."""
        fitted = self.fit(self.cases(train, rankers, [left], own_out=True), seed)
        model = fitted.model(self.corpus, "")
        scored: list[Scored] = []
        for case in self.cases([left], rankers, [left], own_out=False):
            p = model.probabilities(case.rows)
            scored.append(score_case(case, p, self.answer(case, model), self.answer(case, None), model))
        return {**summarize(scored), "choices": fitted.choices()}

    def answer(self, case: Case, decision: DecisionModel | None):
        """The case answered as `ask` answers it, with ``decision`` (or without one: the answer before it)."""
        return self.pipe.answer(
            case.question.question,
            self.corpus,
            case.result,
            self.cfg,
            judge=self.pipe.judge(self.corpus),
            decision=decision,
        )


def train_decision(
    settings: Settings,
    corpus: str,
    question_files: Sequence[Path],
    held_out_files: Sequence[Path] = (),
    seeds: Sequence[int] = (0,),
    store: bool = True,
    say: Say | None = None,
    progress: Progress | None = None,
    validate: bool = True,
) -> DecisionReport:
    """Validate the decision with each set of ``question_files`` left out (and on ``held_out_files``, never
    fitted on; not with ``validate`` False), then fit it on every set and store it behind the corpus's ranker
    (unless ``store`` is False)."""
    if not validate and not store:
        raise ValueError("--no-validate with --no-store leaves nothing to do; drop one of them")
    require_extra("ltr")
    require_extra("eval")
    say = say or (lambda _m: None)
    t0 = time.perf_counter()
    resources = Resources(settings)
    report = DecisionReport(corpus, list(seeds))
    try:
        cfg = RetrievalConfig.from_settings(settings)
        pipe = AskPipeline(resources, cfg)
        ranker, ranker_files = stored_ranker(settings, corpus)
        decision_sets, ranker_sets = set_names(question_files), set_names(ranker_files)
        files = list(dict.fromkeys([*ranker_files, *question_files, *held_out_files]))
        pairs, hashes = load_questions_by_file(settings, files, corpus, say)
        say(f"gathering {sum(1 for q, _ in pairs if q.answerable and q.gold)} questions' candidates")
        trainer = Trainer(pipe, corpus, cfg, gather(pipe, corpus, pairs, cfg, progress))
        report.seconds["gather"] = time.perf_counter() - t0
        for seed in seeds if validate else ():
            rankers = Rankers(trainer.gathered, ranker_sets, ranker.card, cfg.cite_max, seed)
            for left in [*decision_sets, *set_names(held_out_files)]:
                figures = trainer.validate(left, [s for s in decision_sets if s != left], rankers, seed)
                report.left_out.setdefault(left, {"seeds": []})["seeds"].append(figures)
                say(f"seed {seed}: {left} left out: {figures['questions']} questions scored")
        report.seconds["validate"] = time.perf_counter() - t0 - report.seconds["gather"]
        if store:
            rankers = Rankers(trainer.gathered, ranker_sets, ranker.card, cfg.cite_max, seeds[0])
            fitted = trainer.fit(trainer.cases(decision_sets, rankers, [], own_out=True), seeds[0])
            questions = [q for q in hashes if Path(q["path"]).stem in decision_sets]
            report.model_path = store_model(settings, corpus, fitted, questions, report, seeds[0])
            report.final = fitted.choices()
    finally:
        resources.close()
    report.seconds["total"] = time.perf_counter() - t0
    return report


def stored_ranker(settings: Settings, corpus: str) -> tuple[RankerModel, list[Path]]:
    """The corpus's stored ranker and the question files it was trained on (each must be readable here)."""
    ranker = load_ranker(settings, corpus, RANKER_FEATURES)
    if ranker is None:
        raise BifrostError(
            f"no trained ranker for {corpus}: the decision is trained behind it; "
            f"run `bifrost train ranker --corpus {corpus} -q FILE...` first"
        )
    files = [Path(q["path"]) for q in ranker.card.questions]
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        raise BifrostError(
            f"the ranker's question file {missing[0]} is not there: run from where it was trained"
        )
    return ranker, files


def store_model(
    settings: Settings,
    corpus: str,
    fitted: Fitted,
    questions: list[dict[str, str]],
    report: DecisionReport,
    seed: int,
) -> str:
    """Save the fitted decision behind the corpus's stored ranker, its card naming the sets, the validated
    figures and the parameters; the folder it is in."""
    model = fitted.model(corpus, ranker_sha256(settings, corpus))
    model.card.questions = questions
    model.card.figures = report.left_out
    model.card.params = {"selector": F.SELECTOR_PARAMS, "verdict": F.VERDICT_PARAMS, "seed": seed}
    model.card.trained_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    texts = {"selector": fitted.selector.model_to_string()}
    texts.update(
        {f"verdict-{k}": m.model_to_string() for k, m in fitted.verdicts.items() if k in fitted.margins}
    )
    return str(model.save(settings, texts))
