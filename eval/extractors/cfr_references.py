"""Precision and recall of the rule-based CFR reference extractor against the hand-checked sample.

Usage: python -m bifrost.eval.extractors.cfr_references [--corpus PATH] [--gold PATH] [--json]

Gold lines: {"source_id", "raw", "target_id" (null = dangling)}. A gold item is recalled when the
extractor returns the same (source_id, target_id) pair (dangling: same source and a dangling
reference whose raw text overlaps the gold raw). Precision is measured over the extractor's output
for the gold source provisions only (every reference in them was annotated).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bifrost.core.settings import Settings
from bifrost.core.types import Provision, Reference
from bifrost.graph_builders.jurisdictions.us_cfr.index import KnownProvisions
from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_json import parse_ecfr_json
from bifrost.graph_builders.jurisdictions.us_cfr.references import CfrReferenceExtractor

DEFAULT_GOLD = Path(__file__).resolve().parent / "osha_gold_sample.jsonl"
CORPUS_REL = Path("corpora") / "osha-1926" / "part-1926.json"


def shared_dir() -> Path:
    """The shared data folder (BIFROST_SHARED_DIR, else ../shared beside the working directory)."""
    return Settings().resolve_shared_dir() or Path("../shared")


@dataclass(frozen=True)
class GoldItem:
    source_id: str
    raw: str
    target_id: str | None


def load_gold(path: Path) -> list[GoldItem]:
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            d = json.loads(line)
            items.append(GoldItem(d["source_id"], d["raw"], d.get("target_id")))
    if not items:
        raise SystemExit(f"{path}: no gold items")
    return items


def load_provisions(corpus_path: Path) -> list[Provision]:
    """The provisions of an eCFR JSON file, as the scraper reads them."""
    return list(parse_ecfr_json(corpus_path, corpus="osha-1926").provisions)


@dataclass(frozen=True)
class Score:
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def _overlap(a: str, b: str) -> bool:
    return a in b or b in a


def score(gold: Sequence[GoldItem], refs: Sequence[Reference]) -> tuple[Score, Score, list[str]]:
    """(resolved score, dangling score, error lines) over the gold sources."""
    sources = {g.source_id for g in gold}
    out = [r for r in refs if r.source_id in sources]
    errors: list[str] = []
    res_gold = {(g.source_id, g.target_id) for g in gold if g.target_id}
    res_pred = {(r.source_id, r.target_id) for r in out if r.target_id}
    dang_gold = [g for g in gold if not g.target_id]
    dang_pred = [r for r in out if not r.target_id]
    for s, t in sorted(res_pred - res_gold):
        errors.append(f"FP  {s} -> {t}")
    for s, t in sorted(res_gold - res_pred):
        errors.append(f"FN  {s} -> {t}")
    d_tp = sum(
        1 for g in dang_gold if any(r.source_id == g.source_id and _overlap(r.raw, g.raw) for r in dang_pred)
    )
    d_fp_items = [
        r
        for r in dang_pred
        if not any(r.source_id == g.source_id and _overlap(r.raw, g.raw) for g in dang_gold)
    ]
    for g in dang_gold:
        if not any(r.source_id == g.source_id and _overlap(r.raw, g.raw) for r in dang_pred):
            errors.append(f"FN  {g.source_id} -> dangling {g.raw!r}")
    for r in d_fp_items:
        errors.append(f"FP  {r.source_id} -> dangling {r.raw!r} ({r.reason})")
    resolved = Score(len(res_pred & res_gold), len(res_pred - res_gold), len(res_gold - res_pred))
    dangling = Score(d_tp, len(d_fp_items), len(dang_gold) - d_tp)
    return resolved, dangling, errors


def run(corpus_path: Path, gold_path: Path) -> dict:
    provisions = load_provisions(corpus_path)
    known = KnownProvisions.from_provisions(provisions)
    extractor = CfrReferenceExtractor()
    refs = [r for p in provisions if p.text for r in extractor.extract(p, known)]
    gold = load_gold(gold_path)
    missing = sorted({g.source_id for g in gold} - set(known.ids))
    resolved, dangling, errors = score(gold, refs)
    total = Score(resolved.tp + dangling.tp, resolved.fp + dangling.fp, resolved.fn + dangling.fn)
    reasons = Counter((r.reason or "").split(":")[0] for r in refs if r.dangling)
    return {
        "corpus": str(corpus_path),
        "gold": str(gold_path),
        "gold_items": len(gold),
        "provisions": len(provisions),
        "missing_sources": missing,
        "resolved": {
            "tp": resolved.tp,
            "fp": resolved.fp,
            "fn": resolved.fn,
            "precision": resolved.precision,
            "recall": resolved.recall,
        },
        "dangling": {
            "tp": dangling.tp,
            "fp": dangling.fp,
            "fn": dangling.fn,
            "precision": dangling.precision,
            "recall": dangling.recall,
        },
        "overall": {
            "tp": total.tp,
            "fp": total.fp,
            "fn": total.fn,
            "precision": total.precision,
            "recall": total.recall,
        },
        "corpus_references": {
            "resolved": sum(1 for r in refs if not r.dangling),
            "dangling": sum(1 for r in refs if r.dangling),
            "dangling_by_reason": dict(reasons.most_common()),
        },
        "errors": errors,
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--corpus", type=Path, default=None, help="eCFR JSON (default: $BIFROST_SHARED_DIR/corpora/...)"
    )
    ap.add_argument("--gold", type=Path, default=DEFAULT_GOLD)
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    corpus = args.corpus or shared_dir() / CORPUS_REL
    if not corpus.exists():
        print(f"corpus not found: {corpus} (set BIFROST_SHARED_DIR or pass --corpus)", file=sys.stderr)
        return 2
    result = run(corpus, args.gold)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"gold items: {result['gold_items']}  provisions: {result['provisions']}")
    if result["missing_sources"]:
        print(f"gold sources not in corpus: {', '.join(result['missing_sources'])}")
    print(f"{'':10} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>10} {'recall':>8}")
    for key in ("resolved", "dangling", "overall"):
        s = result[key]
        print(f"{key:10} {s['tp']:>4} {s['fp']:>4} {s['fn']:>4} {s['precision']:>10.3f} {s['recall']:>8.3f}")
    cr = result["corpus_references"]
    print(f"\nwhole corpus: {cr['resolved']} resolved, {cr['dangling']} dangling")
    for reason, n in cr["dangling_by_reason"].items():
        print(f"  {n:>5}  {reason}")
    if result["errors"]:
        print("\nerrors:")
        for e in result["errors"]:
            print("  " + e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
