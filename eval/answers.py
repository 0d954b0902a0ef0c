"""`bifrost eval answers`: does an answer lead with a gold provision? (`first_statement_gold`)

For every answerable question of the given sets, the question is retrieved once, as `bifrost ask`
retrieves it, and answered offline by each answer strategy over that same retrieval:

- ``rank``: the earlier answer (each cited provision's closest sentence, in rank order);
- ``fact``: lead with the sentence holding the asked-for fact (`bifrost.retrieval.answer_lead`);
- ``fact-reach``: the same, also looking for that fact in the top retrieved items when the cited ones lack it.

``first_statement_gold`` is the share of answers whose first statement cites a gold provision (a
refusal counts as a miss); ``first_statement_gold_h`` also credits an ancestor or descendant of a gold
provision. The one knob (`fact_search_depth`) is chosen inside k-fold cross-validation (folds by question-id hash):
each test fold is answered by the strategy that scored best on the other folds, and that figure is
the one reported for the new answer. Every span of every statement is re-checked against the stored
text (`spans_verified`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bifrost.core.resources import Resources
from bifrost.core.settings import Settings
from bifrost.core.types import Answer
from bifrost.eval.answerability import load_questions_by_file
from bifrost.eval.hierarchy import Related, hierarchy_for
from bifrost.eval.splits import fold_of
from bifrost.eval.questions import Question
from bifrost.eval.stats import bootstrap_ci, mcnemar_exact
from bifrost.retrieval.answer_lead import open_note
from bifrost.retrieval.answerability import detect
from bifrost.retrieval.config import RetrievalConfig
from bifrost.retrieval.pipeline import AskPipeline
from bifrost.retrieval.quotes import verifies

BEFORE = "rank"
STRATEGIES: dict[str, dict[str, Any]] = {
    "rank": {"answer_lead": "rank"},
    "fact": {"answer_lead": "fact", "fact_search_depth": 0},
    "fact-reach": {"answer_lead": "fact", "fact_search_depth": 6},
}
TUNED = ("fact", "fact-reach")
"""The new answer's variants; cross-validation picks one per fold (ties: the first, the simpler)."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Outcome:
    """How one strategy answered one question."""

    first: tuple[str, ...]  # citations of the first statement (empty: refused or no statement)
    hit: bool  # the first statement cites a gold provision
    hit_h: bool  # ... or an ancestor or descendant of one
    open: bool  # the answer says the cited provisions leave the question open
    statements: int
    cited: tuple[str, ...]  # every provision the answer cites, in order (a gold one among them: the ceiling)
    spans_ok: bool  # every quote of every statement is the stored text between its offsets


@dataclass(frozen=True)
class Case:
    """One answerable question, the file it came from and each strategy's outcome."""

    question: Question
    source: str
    asks: str
    outcomes: dict[str, Outcome]


def outcome(answer: Answer, gold: Sequence[str], related: Related, lookup) -> Outcome:
    """Score one answer against the question's gold provisions."""
    first = answer.statements[0].citations if answer.statements and not answer.refused else ()
    hit = bool(set(first) & set(gold))
    hit_h = hit or any(related(c, g) for c in first for g in gold)
    spans_ok = all((p := lookup(q.provision_id)) is not None and verifies(q, p)
                   for st in answer.statements for q in st.quotes) and all(st.quotes for st in answer.statements)
    is_open = bool(answer.statements) and answer.statements[0].text == open_note(detect(answer.question))
    cited = tuple(dict.fromkeys(c for st in answer.statements for c in st.citations))
    return Outcome(tuple(first), hit, hit_h, is_open, len(answer.statements), cited, spans_ok)


def collect(settings: Settings, corpus: str, pairs: Sequence[tuple[Question, str]], progress: Progress | None = None) -> list[Case]:
    """Retrieve each answerable question once and answer it with every strategy."""
    resources = Resources(settings)
    try:
        base = RetrievalConfig.from_settings(settings)
        pipe = AskPipeline(resources, base)
        retriever = pipe.retriever(corpus)
        lookup = pipe.lookup(corpus)
        jur = resources.sql.jurisdiction(corpus)
        related, _ = hierarchy_for(jur, resources.sql.provisions(corpus) if jur not in (None, "us-cfr") else [])
        configs = {name: base.model_copy(update=upd) for name, upd in STRATEGIES.items()}
        answerable = [(q, s) for q, s in pairs if q.answerable and q.gold]
        pipe.prepare(corpus, [q.question for q, _ in answerable], base)
        cases = []
        for n, (q, source) in enumerate(answerable, start=1):
            result = retriever.retrieve(q.question, base)
            outcomes = {name: outcome(pipe.answer(q.question, corpus, result, cfg, judge=pipe.judge(corpus)), q.gold, related, lookup)
                        for name, cfg in configs.items()}
            cases.append(Case(q, source, detect(q.question).kind.value, outcomes))
            if progress:
                progress(n, len(answerable))
    finally:
        resources.close()
    return cases


def cross_validated(cases: Sequence[Case], folds: int) -> tuple[list[bool], list[str]]:
    """Each question's hit under the strategy chosen on the other folds, and the choice per fold."""
    hits = [False] * len(cases)
    chosen = []
    for k in range(folds):
        test = [i for i, c in enumerate(cases) if fold_of(c.question.id, folds) == k]
        train = [c for c in cases if fold_of(c.question.id, folds) != k]
        best = max(TUNED, key=lambda s: (sum(c.outcomes[s].hit for c in train), -TUNED.index(s)))
        chosen.append(best)
        for i in test:
            hits[i] = cases[i].outcomes[best].hit
    return hits, chosen


def _share(values: Sequence[bool]) -> dict[str, float]:
    ci = bootstrap_ci([float(v) for v in values])
    return {"mean": ci.mean, "low": ci.low, "high": ci.high, "n": ci.n}


def summarize(cases: Sequence[Case], folds: int) -> dict[str, Any]:
    """Figures of every strategy, the cross-validated new answer, and the paired test against ``rank``."""
    sets = sorted({c.source for c in cases})
    out: dict[str, Any] = {"questions": len(cases), "sets": {s: sum(c.source == s for c in cases) for s in sets}, "strategies": {}}
    for name in STRATEGIES:
        oc = [c.outcomes[name] for c in cases]
        out["strategies"][name] = {
            "first_statement_gold": _share([o.hit for o in oc]),
            "first_statement_gold_h": _share([o.hit_h for o in oc]),
            "any_statement_gold": _share([bool(set(o.cited) & set(c.question.gold)) for o, c in zip(oc, cases)])["mean"],
            "by_set": {s: _share([c.outcomes[name].hit for c in cases if c.source == s])["mean"] for s in sets},
            "open": sum(o.open for o in oc), "no_answer": sum(o.statements == 0 for o in oc),
            "spans_verified": all(o.spans_ok for o in oc),
        }
    hits, chosen = cross_validated(cases, folds)
    before = [c.outcomes[BEFORE].hit for c in cases]
    mc = mcnemar_exact(before, hits)
    out["cv"] = {
        "folds": folds, "chosen": chosen, "first_statement_gold": _share(hits),
        "by_set": {s: _share([h for h, c in zip(hits, cases) if c.source == s])["mean"] for s in sets},
        "vs_rank": {"only_rank": mc.only_a, "only_new": mc.only_b, "mcnemar_p": mc.pvalue},
    }
    out["by_asks"] = {a: {name: _share([c.outcomes[name].hit for c in cases if c.asks == a])["mean"] for name in STRATEGIES}
                      | {"n": sum(c.asks == a for c in cases)} for a in sorted({c.asks for c in cases})}
    return out


def report_md(summary: dict[str, Any], command: str) -> str:
    """The figures as a short markdown report."""
    lines = [f"# first_statement_gold ({summary['questions']} answerable questions)", "", f"`{command}`", "",
             "| answer | first statement cites gold | with hierarchy credit | open | " + " | ".join(summary["sets"]) + " |",
             "|---|---|---|---|" + "---|" * len(summary["sets"])]
    for name, s in summary["strategies"].items():
        f, h = s["first_statement_gold"], s["first_statement_gold_h"]
        lines.append(f"| {name} | {f['mean']:.3f} [{f['low']:.3f}, {f['high']:.3f}] | {h['mean']:.3f} | {s['open']} | "
                     + " | ".join(f"{v:.3f}" for v in s["by_set"].values()) + " |")
    cv = summary["cv"]
    f = cv["first_statement_gold"]
    lines.append(f"| **new, {cv['folds']}-fold CV** | **{f['mean']:.3f} [{f['low']:.3f}, {f['high']:.3f}]** | | | "
                 + " | ".join(f"{v:.3f}" for v in cv["by_set"].values()) + " |")
    vs = cv["vs_rank"]
    lines += ["", f"Chosen per fold: {', '.join(cv['chosen'])}. Against `rank`: {vs['only_new']} questions gained, "
              f"{vs['only_rank']} lost (exact McNemar p = {vs['mcnemar_p']:.4f}).", "",
              "By what the question asks for: " + "; ".join(
                  f"{a} ({v['n']}): " + ", ".join(f"{k} {x:.2f}" for k, x in v.items() if k != "n") for a, v in summary["by_asks"].items())]
    return "\n".join(lines) + "\n"


def run(settings: Settings, corpus: str, files: Sequence[Path], folds: int = 5, out_dir: Path | None = None,
        progress: Progress | None = None, command: str = "") -> dict[str, Any]:
    """Collect, summarize and (with ``out_dir``) write summary.json, report.md and per_question.jsonl."""
    if folds < 2:
        raise ValueError(f"--folds must be at least 2, got {folds}")
    pairs, hashes = load_questions_by_file(settings, files, corpus)
    cases = collect(settings, corpus, pairs, progress)
    if not cases:
        raise ValueError("no answerable question with gold provisions in the given files")
    summary = summarize(cases, folds) | {"corpus": corpus, "files": hashes}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
        (out_dir / "report.md").write_text(report_md(summary, command))
        with (out_dir / "per_question.jsonl").open("w") as f:
            for c in cases:
                f.write(json.dumps({"id": c.question.id, "set": c.source, "asks": c.asks, "gold": c.question.gold,
                                    **{k: asdict(o) for k, o in c.outcomes.items()}}) + "\n")
    return summary
