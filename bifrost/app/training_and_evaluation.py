"""What the facade adds for researchers: training each model (cross-validated, then stored in the home) and
evaluating systems and answers on question sets. A mixin of `Bifrost`, kept apart so the facade stays about
building and asking; every option is a typed keyword argument, passed to `bifrost.training` or
`bifrost.eval`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from bifrost.app.records import AnswerEvaluation, RunComparison

if TYPE_CHECKING:  # pragma: no cover
    from bifrost.eval.runner import RunResult
    from bifrost.training.answerability.run import AnswerabilityReport
    from bifrost.training.decision.run import DecisionReport
    from bifrost.training.encoder.train import EncoderReport
    from bifrost.training.ranker.report import TrainReport

Say = Callable[[str], None]
Progress = Callable[[int, int], None]
Files = Sequence[Path | str]


def _paths(files: Files) -> list[Path]:
    return [Path(f) for f in files]


class TrainingAndEvaluation:
    """Train and evaluate over the facade's settings; a trained model is served from the next question on
    (``pipeline.forget``). Each run opens its own stores."""

    def train_ranker(
        self,
        questions: Files,
        corpus: str = "osha-1926",
        *,
        folds: int = 5,
        ablations: bool = True,
        hybrid: bool = True,
        cv: bool = True,
        seed: int = 0,
        seeds: Sequence[int] | None = None,
        store: bool = True,
        encoder_files: Files = (),
        held_out_files: Files = (),
        loso_without: Sequence[str] = (),
        out_dir: Path | None = None,
        say: Say | None = None,
        progress: Progress | None = None,
    ) -> TrainReport:
        """Cross-validate the learned ranker (k-fold, and leave-one-set-out over several files) beside the
        baselines, then fit it on every question and store it (unless ``store`` is False); see
        `bifrost.training.ranker.train.train_ranker`."""
        from bifrost.training.ranker.train import train_ranker

        report = train_ranker(
            self.settings,
            corpus,
            _paths(questions),
            folds=folds,
            ablations=ablations,
            hybrid=hybrid,
            cv=cv,
            seed=seed,
            seeds=seeds,
            store=store,
            encoder_files=_paths(encoder_files),
            held_out_files=_paths(held_out_files),
            loso_without=loso_without,
            out_dir=out_dir,
            say=say,
            progress=progress,
        )
        self.pipeline.forget(corpus)
        return report

    def train_answerability(
        self,
        questions: Files,
        corpus: str = "osha-1926",
        *,
        folds: int = 5,
        target: float = 0.02,
        open_target: float = 0.10,
        ablations: bool = True,
        support: bool = False,
        store: bool = True,
        held_out_files: Files = (),
        out_dir: Path | None = None,
        say: Say | None = None,
        progress: Progress | None = None,
    ) -> AnswerabilityReport:
        """Cross-validate and store the model that decides when to refuse: at most ``target`` false refusals
        and ``open_target`` answerable questions left open; see `bifrost.training.answerability.run`."""
        from bifrost.training.answerability.run import train_answerability

        report = train_answerability(
            self.settings,
            corpus,
            _paths(questions),
            folds=folds,
            target=target,
            open_target=open_target,
            ablations=ablations,
            support=support,
            store=store,
            held_out_files=_paths(held_out_files),
            out_dir=out_dir,
            say=say,
            progress=progress,
        )
        self.pipeline.forget(corpus)
        return report

    def train_router(
        self,
        questions: Files = (),
        corpora: str = "all",
        *,
        default_corpus: str | None = None,
        since: int | None = None,
        store: bool = True,
        say: Say | None = None,
    ):
        """Learn which corpus of the home answers a question from its answered questions (validated forward in
        time and on ``questions``, never fitted on them) and store it; see `bifrost.training.router.run`."""
        from bifrost.core.extras import require_extra
        from bifrost.training.router.run import train_router

        require_extra("eval", "sklearn")
        return train_router(
            self.pipeline,
            self.corpora_in(corpora),
            _paths(questions),
            default_corpus=default_corpus,
            since=since,
            store=store,
            say=say,
        )

    def train_decision(
        self,
        questions: Files,
        corpus: str = "osha-1926",
        *,
        held_out: Files = (),
        seeds: Sequence[int] = (0,),
        store: bool = True,
        validate: bool = True,
        out_dir: Path | None = None,
        say: Say | None = None,
        progress: Progress | None = None,
    ) -> DecisionReport:
        """Validate the decision (governing-rule selector, calibration, verdicts) with each set left out,
        nested behind rankers that never saw it, then store it behind the stored ranker; see
        `bifrost.training.decision.run`."""
        from bifrost.training.decision.report import write_report
        from bifrost.training.decision.run import train_decision

        report = train_decision(
            self.settings,
            corpus,
            _paths(questions),
            _paths(held_out),
            seeds=list(seeds),
            store=store,
            say=say,
            progress=progress,
            validate=validate,
        )
        if out_dir is not None:
            write_report(report, out_dir)
        self.pipeline.forget(corpus)
        return report

    def train_encoder(
        self,
        corpus: str = "osha-1926",
        *,
        max_pairs: int = 8000,
        epochs: int = 1,
        batch_size: int = 32,
        out: Path | None = None,
        seed: int = 13,
        progress: Progress | None = None,
    ) -> EncoderReport:
        """Fine-tune the embedding model on the corpus's own pairs (no labels); see
        `bifrost.training.encoder.train`."""
        from bifrost.training.encoder.train import train_encoder

        return train_encoder(
            self.settings,
            corpus,
            max_pairs=max_pairs,
            epochs=epochs,
            batch_size=batch_size,
            out=out,
            seed=seed,
            progress=progress,
        )

    def evaluate(
        self,
        questions: Path | str,
        corpus: str = "osha-1926",
        systems: Sequence[str] | str = "bm25,dense,rrf,bifrost-ltr",
        out_dir: Path | str | None = None,
        *,
        k: int = 10,
        limit: int | None = None,
        question_format: str = "auto",
        as_of: str | None = None,
        plots: bool = True,
        progress: Callable[..., None] | None = None,
    ) -> RunResult:
        """Run a question set against systems and score them (metrics, per-question rows, report and plots in
        ``out_dir``, default a new folder under ``$BIFROST_HOME/runs``; ``as_of``: a past edition)."""
        from bifrost.core.extras import require_extra
        from bifrost.eval.registry import make_default_registry
        from bifrost.eval.runner import run_eval

        require_extra("eval")
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a whole number of at least 1, got {k!r}")
        if out_dir is None:
            stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
            out_dir = self.settings.home / "runs" / f"{corpus}-{stamp}"
        return run_eval(
            corpus,
            questions,
            systems,
            out_dir,
            self.settings,
            k=k,
            limit=limit,
            registry=make_default_registry(),
            question_format=question_format,
            progress=progress,
            plots=plots,
            as_of=as_of,
        )

    def evaluate_answers(
        self,
        questions: Files,
        corpus: str = "osha-1926",
        *,
        folds: int = 5,
        out_dir: Path | None = None,
        progress: Progress | None = None,
        command: str = "",
    ) -> AnswerEvaluation:
        """Score the answers themselves (`bifrost.eval.answers.run`); ``report`` holds the markdown report and
        ``command`` the command line it names."""
        from bifrost.eval.answers import report_md, run

        summary = run(
            self.settings,
            corpus,
            _paths(questions),
            folds=folds,
            out_dir=out_dir,
            progress=progress,
            command=command,
        )
        return AnswerEvaluation.model_validate({**summary, "report": report_md(summary, command)})

    @staticmethod
    def compare_runs(run_a: Path | str, run_b: Path | str) -> RunComparison:
        """Paired tests (Wilcoxon, exact McNemar) between two `evaluate` output folders."""
        from bifrost.eval.compare import compare_runs

        return RunComparison.model_validate(compare_runs(Path(run_a), Path(run_b)))
