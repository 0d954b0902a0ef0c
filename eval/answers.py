"""`bifrost eval answers`: do answers cite what the question needs, and do they answer it?

Every answerable question of the given sets is retrieved once, as `bifrost ask` retrieves it, and
judged once by the refusal rule (a refused or "not stated" answer cites nothing: it scores 0). Then:

- each **answer plan policy** (`retrieval/answer/plan.py`: which relations the plan follows from the cited
  set) composes an offline answer over that retrieval; its **citations** are every provision its
  statements cite;
- two baselines cite without a plan: ``rrf`` (reciprocal-rank fusion of BM25 and dense, its top 3)
  and ``bifrost-hybrid`` (the hand-set hybrid's cited set).

Measures per answer: citation precision, recall and F1 against the gold (exact, and with hierarchy
credit: an ancestor or descendant of a gold provision counts), whether the first statement cites a
gold provision, and for questions labelled with a verdict (``verdict``: yes, no or depends), whether
the answer gives one and whether it is right. The policy is the one knob: it is chosen on the other
question sets for each set left out (k folds when there is one set), and that validated figure is
the one reported for the plan; every statement's quote is re-checked against the stored text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.core.answer_types import Answer, Outcome
from bifrost.eval.question_files import load_questions_by_file
from bifrost.eval.hierarchy import Related, hierarchy_for
from bifrost.eval.metrics import hierarchy_prf, set_prf
from bifrost.eval.questions import Question, own_answers
from bifrost.eval.splits import Split, k_fold, leave_one_set_out
from bifrost.eval.stats import bootstrap_ci
from bifrost.retrieval.answer.citations import cited_items
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.fusion import rrf_fuse
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.answer.quotes import verifies

POLICIES: dict[str, str] = {
    "core": "core",
    "asks": "asks",
    "graph": "exceptions+procedures+siblings",
    "asks+graph": "asks+exceptions+procedures+siblings",
    "asks+graph+definitions": "asks+exceptions+procedures+siblings+definitions",
    "asks+graph if every": "asks+exceptions+procedures+siblings+every",
    "lists": "lists",
    "asks+graph if every, lists": "asks+exceptions+procedures+siblings+every+lists",
}
"""Answer plan policies compared (name -> `RetrievalConfig.answer_plan`); validation picks one."""
BASELINES = ("rrf", "bifrost-hybrid")
ASK = "ask"
"""The answers `ask` gives (the configured plan policy): the headline row; the other policies are studies."""
RRF_CITED = 3
"""Provisions the rrf baseline cites (its top ranks: a fixed cut)."""
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Scored:
    """How one system answered one question."""

    cited: tuple[str, ...]  # every provision the answer cites, in order
    first: tuple[str, ...] = ()  # citations of the first statement (empty: refused or no statement)
    verdict: str | None = None
    spans_ok: bool = True  # every quote of every statement is the stored text between its offsets


@dataclass(frozen=True)
class Case:
    """One answerable question, the set it came from, and each system's answer."""

    question: Question
    source: str
    outcomes: dict[str, Scored]

    @property
    def multi_hop(self) -> bool:
        return any(str(t).startswith("multi-hop") for t in self.question.extra.get("tags") or [])

    @property
    def verdict(self) -> str | None:
        """The labelled verdict (yes, no, depends), or None."""
        v = self.question.extra.get("verdict")
        return v if v in ("yes", "no", "depends") else None


def scored(answer: Answer, lookup) -> Scored:
    """What an answer cites, its first statement's citations, its verdict, and whether its quotes verify."""
    if answer.refused or answer.outcome not in (Outcome.ANSWERED, Outcome.SHORTLIST):
        return Scored(())  # a shortlist's citations are what it quotes, likeliest first
    statements = answer.statements
    spans_ok = all(
        (p := lookup(q.provision_id)) is not None and verifies(q, p) for st in statements for q in st.quotes
    ) and all(st.quotes for st in statements)
    return Scored(
        tuple(dict.fromkeys(c for st in statements for c in st.citations)),
        statements[0].citations if statements else (),
        answer.verdict.value if answer.verdict else None,
        spans_ok,
    )


class JudgedOnce:
    """A judge whose score of one question's result is computed once, for every policy answering it."""

    def __init__(self, judge: Any, question: str, result: Any) -> None:
        self.threshold, self.answer_threshold = judge.threshold, judge.answer_threshold
        self._score = judge.score(question, result)

    def score(self, question: str, result: Any) -> float | None:
        return self._score


def collect(
    settings: Settings, corpus: str, pairs: Sequence[tuple[Question, str]], progress: Progress | None = None
) -> list[Case]:
    """Retrieve and judge each answerable question once; answer it with every policy and baseline."""
    resources = Resources(settings)
    try:
        base = RetrievalConfig.from_settings(settings)
        pipe = AskPipeline(resources, base)
        parts, lookup, judge = pipe.parts(corpus), pipe.lookup(corpus), pipe.judge(corpus)
        hybrid = parts.hybrid(base.model_copy(update={"ranker": "hybrid"}))
        answerable = [(q, s) for q, s in pairs if q.answerable and q.gold]
        pipe.prepare(corpus, [q.question for q, _ in answerable], base)
        ids = parts.channels.ids
        cases = []
        for n, (q, source) in enumerate(answerable, start=1):
            result = pipe.retrieve(q.question, corpus, base, own_answers(q))
            outcomes: dict[str, Scored] = {}
            once = JudgedOnce(judge, q.question, result) if judge is not None else None
            for (
                name,
                policy,
                # through ask's own answer step: its one refusal gate (the judge or the cosine rule)
            ) in POLICIES.items():
                cfg = base.model_copy(update={"answer_plan": policy})
                outcomes[name] = scored(pipe.answer(q.question, corpus, result, cfg, judge=once), lookup)
            # as `ask` answers
            outcomes[ASK] = scored(pipe.answer(q.question, corpus, result, base, judge=once), lookup)
            bm25, dense = (
                parts.channels.bm25.score_all(q.question),
                parts.channels.dense.score_all(q.question),
            )
            lists = [[ids[i] for i in np.argsort(-s, kind="stable")[:100]] for s in (bm25, dense)]
            top = tuple(pid for pid, _ in rrf_fuse(lists)[:RRF_CITED])
            outcomes["rrf"] = Scored(top, top[:1])  # an answer quoting its top provisions first
            hyb = hybrid.retrieve(q.question)
            cited = tuple(it.id for it in cited_items(hyb.items, hyb.cited, base.cite_ratio, base.cite_max))
            outcomes["bifrost-hybrid"] = Scored(cited, cited[:1])
            cases.append(Case(q, source, outcomes))
            if progress:
                progress(n, len(answerable))
    finally:
        resources.close()
    return cases


def f1_of(case: Case, name: str) -> float:
    return set_prf(case.outcomes[name].cited, case.question.gold).f1


def validated(cases: Sequence[Case], folds: int) -> tuple[list[str], dict[str, str]]:
    """Per question, the policy chosen (best mean citation F1) on the cases outside its split: each set
    left out in turn, or k folds with one set; and the choice per split."""
    splits: list[Split] = leave_one_set_out([c.source for c in cases]) or k_fold(
        [c.question.id for c in cases], folds
    )
    chosen = [""] * len(cases)
    by_split: dict[str, str] = {}
    for split in splits:
        train = [cases[i] for i in split.train]
        best = max(
            POLICIES,
            key=lambda p: (
                float(np.mean([f1_of(c, p) for c in train])) if train else 0.0,
                -list(POLICIES).index(p),
            ),
        )
        by_split[split.name] = best
        for i in split.test:
            chosen[i] = best
    return chosen, by_split


def _mean(values: Sequence[float]) -> dict[str, Any]:
    ci = bootstrap_ci(list(values))
    return {"mean": ci.mean, "low": ci.low, "high": ci.high, "n": ci.n}


def system_figures(cases: Sequence[Case], picks: Sequence[str], related: Related) -> dict[str, Any]:
    """Citation P/R/F1 (exact and hierarchy credit), cites per answer, first statement cites gold, and
    verdicts, for answers picked per case (``picks[i]``: the system answering case i)."""
    rows = [(c, c.outcomes[p]) for c, p in zip(cases, picks)]
    exact = [set_prf(o.cited, c.question.gold) for c, o in rows]
    hier = [hierarchy_prf(o.cited, c.question.gold, related) for c, o in rows]
    labelled = [(c.verdict, o.verdict) for c, o in rows if c.verdict is not None]
    given = [(want, got) for want, got in labelled if got is not None]
    return {
        "n": len(rows),
        "cites": float(np.mean([len(o.cited) for _, o in rows])) if rows else 0.0,
        "precision": _mean([x.precision for x in exact]),
        "recall": _mean([x.recall for x in exact]),
        "f1": _mean([x.f1 for x in exact]),
        "f1_h": _mean([x.f1 for x in hier]),
        "first_statement_gold": _mean([float(bool(set(o.first) & set(c.question.gold))) for c, o in rows]),
        "verdicts": {
            "labelled": len(labelled),
            "given": len(given),
            "coverage": len(given) / len(labelled) if labelled else float("nan"),
            "accuracy": float(np.mean([want == got for want, got in given])) if given else float("nan"),
        },
        "spans_verified": all(o.spans_ok for _, o in rows),
    }


def summarize(cases: Sequence[Case], folds: int, related: Related) -> dict[str, Any]:
    """Figures of every policy and baseline, and of the validated plan, over all cases, by set and on
    multi-hop ones."""
    chosen, by_split = validated(cases, folds)
    subsets = {"all": list(range(len(cases))), "multi-hop": [i for i, c in enumerate(cases) if c.multi_hop]}
    subsets |= {
        f"set {s}": [i for i, c in enumerate(cases) if c.source == s]
        for s in sorted({c.source for c in cases})
    }
    out: dict[str, Any] = {"questions": len(cases), "policies": POLICIES, "chosen": by_split, "subsets": {}}
    for label, idx in subsets.items():
        if not idx:
            continue
        sub = [cases[i] for i in idx]
        systems = {
            name: system_figures(sub, [name] * len(sub), related) for name in (ASK, *BASELINES, *POLICIES)
        }
        systems["plan (validated)"] = system_figures(sub, [chosen[i] for i in idx], related)
        out["subsets"][label] = systems
    out["chosen_on_all"] = max(
        POLICIES, key=lambda p: (float(np.mean([f1_of(c, p) for c in cases])), -list(POLICIES).index(p))
    )
    return out


def _cell(f: dict[str, Any], key: str) -> str:
    v = f[key]["mean"] if isinstance(f[key], dict) else f[key]
    return "–" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:.3f}"


def report_md(summary: dict[str, Any], command: str) -> str:
    """The figures as markdown: one table per subset (all, multi-hop, each set)."""
    lines = [
        f"# Answers: citations and verdicts ({summary['questions']} answerable questions)",
        "",
        f"`{command}`",
        "",
        'The headline is **ask**: the answers `ask` gives, with its configured plan policy. Refused or "not '
        'stated" answers cite nothing (F1 0). As a study, a policy is chosen on the other sets for '
        f"each set left out ({', '.join(f'{k}: {v}' for k, v in summary['chosen'].items())}); on all sets: "
        f"{summary['chosen_on_all']}.",
        "",
    ]
    for label, systems in summary["subsets"].items():
        lines += [
            f"## {label}",
            "",
            "| system | cites | P | R | F1 | F1 (hierarchy) | first statement gold | verdict given | "
            "verdict right |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name, f in systems.items():
            v = f["verdicts"]
            verdict = (
                (f"{v['given']}/{v['labelled']}", f"{v['accuracy']:.2f}" if v["given"] else "–")
                if v["labelled"]
                else ("–", "–")
            )
            bold = "**" if name == ASK else ""
            lines.append(
                f"| {bold}{name}{bold} | {f['cites']:.1f} | {_cell(f, 'precision')} | {_cell(f, 'recall')} | "
                f"{bold}{_cell(f, 'f1')}{bold} | {_cell(f, 'f1_h')} | {_cell(f, 'first_statement_gold')} | "
                f"{verdict[0]} | {verdict[1]} |"
            )
        lines.append("")
    return "\n".join(lines)


def run(
    settings: Settings,
    corpus: str,
    files: Sequence[Path],
    folds: int = 5,
    out_dir: Path | None = None,
    progress: Progress | None = None,
    command: str = "",
) -> dict[str, Any]:
    """Collect, summarize and (with ``out_dir``) write summary.json, report.md and per_question.jsonl."""
    if folds < 2:
        raise ValueError(f"--folds must be at least 2, got {folds}")
    pairs, hashes = load_questions_by_file(settings, files, corpus)
    cases = collect(settings, corpus, pairs, progress)
    if not cases:
        raise ValueError("no answerable question with gold provisions in the given files")
    resources = Resources(settings)
    try:
        jur = resources.sql.jurisdiction(corpus)
        related, _ = hierarchy_for(corpus, jur, lambda: resources.sql.provisions(corpus))
    finally:
        resources.close()
    summary = summarize(cases, folds, related) | {"corpus": corpus, "files": hashes}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
        (out_dir / "report.md").write_text(report_md(summary, command))
        with (out_dir / "per_question.jsonl").open("w") as f:
            for c in cases:
                f.write(
                    json.dumps(
                        {
                            "id": c.question.id,
                            "set": c.source,
                            "gold": c.question.gold,
                            "verdict": c.verdict,
                            "multi_hop": c.multi_hop,
                            **{k: asdict(o) for k, o in c.outcomes.items()},
                        }
                    )
                    + "\n"
                )
    return summary
