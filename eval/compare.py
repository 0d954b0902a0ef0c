"""Paired comparisons of systems on the same questions: within one run, or between two runs' files."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bifrost.core.errors import SourceParseError
from bifrost.eval.stats import fixed_broken, mcnemar_exact, wilcoxon_p

PAIRED_METRICS = ("f1", "f1_h", "recall@10", "map@10", "ndcg@10")
Rows = Mapping[str, Mapping[str, float]]


def paired(a: Rows, b: Rows, metrics: Sequence[str] = PAIRED_METRICS, hit: str = "hit@10") -> dict[str, Any]:
    """B vs A on their common questions: mean difference and Wilcoxon p per metric, McNemar on `hit`."""
    qids = [q for q in a if q in b]
    out: dict[str, Any] = {"n": len(qids), "metrics": {}}
    for m in metrics:
        xa = [a[q].get(m, math.nan) for q in qids]
        xb = [b[q].get(m, math.nan) for q in qids]
        pairs = [(x, y) for x, y in zip(xa, xb) if not (math.isnan(x) or math.isnan(y))]
        diff = sum(y - x for x, y in pairs) / len(pairs) if pairs else math.nan
        out["metrics"][m] = {
            "mean_a": _mean([x for x, _ in pairs]),
            "mean_b": _mean([y for _, y in pairs]),
            "diff": diff,
            "wilcoxon_p": wilcoxon_p([x for x, _ in pairs], [y for _, y in pairs]),
        }
    hq = [
        q for q in qids if not math.isnan(a[q].get(hit, math.nan)) and not math.isnan(b[q].get(hit, math.nan))
    ]
    ha, hb = [a[q][hit] > 0 for q in hq], [b[q][hit] > 0 for q in hq]
    mc = mcnemar_exact(ha, hb)
    fb = fixed_broken(hq, ha, hb)
    out["mcnemar"] = {"metric": hit, "only_a": mc.only_a, "only_b": mc.only_b, "pvalue": mc.pvalue}
    out["fixed"], out["broken"] = fb["fixed"], fb["broken"]
    return out


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else math.nan


def read_per_question(run_dir: Path) -> dict[str, dict[str, dict[str, float]]]:
    """system -> question id -> metrics, from a run's per_question.jsonl."""
    path = Path(run_dir) / "per_question.jsonl"
    if not path.is_file():
        raise SourceParseError(path, "no per_question.jsonl here; is this a `bifrost eval` output folder?")
    out: dict[str, dict[str, dict[str, float]]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            metrics = {k: math.nan if v is None else float(v) for k, v in row["metrics"].items()}
            out.setdefault(row["system"], {})[row["id"]] = metrics
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as e:
            raise SourceParseError(path, f"line {n}: {type(e).__name__}: {e}") from e
    return out


def _question_hash(run_dir: Path) -> str | None:
    try:
        return json.loads((Path(run_dir) / "metrics.json").read_text())["meta"]["questions"]["sha256"]
    except (OSError, ValueError, KeyError):
        return None


def compare_runs(run_a: Path, run_b: Path, metrics: Sequence[str] = PAIRED_METRICS) -> dict[str, Any]:
    """Paired tests between two runs: systems with the same name, else the first system of each."""
    a, b = read_per_question(Path(run_a)), read_per_question(Path(run_b))
    common = [s for s in a if s in b]
    pairs = [(s, s) for s in common] or [(next(iter(a)), next(iter(b)))]
    ha, hb = _question_hash(Path(run_a)), _question_hash(Path(run_b))
    return {
        "run_a": str(run_a),
        "run_b": str(run_b),
        "same_questions": ha is not None and ha == hb,
        "comparisons": [
            {"system_a": sa, "system_b": sb, **paired(a[sa], b[sb], metrics)} for sa, sb in pairs
        ],
    }
