"""Precision and recall of the rule-based CFR reference extractor against the hand-checked sample.

Usage: python -m benchmarks.reference_extractor_eval [--corpus PATH] [--gold PATH] [--json] [--dangling]

Gold lines: {"source_id", "raw", "target_id" (null = dangling)}. A gold item is recalled when the
extractor returns the same (source_id, target_id) pair (dangling: same source and a dangling
reference whose raw text overlaps the gold raw). Precision is measured over the extractor's output
for the gold source provisions only (every reference in them was annotated).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bifrost.core.types import Provision, ProvisionKind, Reference
from bifrost.graph_builders.jurisdictions.us_cfr.citation import (
    CfrCitation,
    label_positions,
    label_value,
    validate_labels,
)
from bifrost.graph_builders.jurisdictions.us_cfr.index import KnownProvisions
from bifrost.graph_builders.jurisdictions.us_cfr.references import CfrReferenceExtractor

REPO = Path(__file__).resolve().parents[1]
DEFAULT_GOLD = REPO / "tests" / "fixtures" / "references" / "osha_gold_sample.jsonl"
CORPUS_REL = Path("corpora") / "osha-1926" / "part-1926.json"


def shared_dir() -> Path:
    """BIFROST_SHARED_DIR, else ../shared next to the repository."""
    env = os.environ.get("BIFROST_SHARED_DIR")
    return Path(env) if env else REPO.parent / "shared"


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
    """Provisions from the scraper when it exists, else from the private line splitter below."""
    try:
        from bifrost.graph_builders.jurisdictions.us_cfr.sources.ecfr_json import parse_ecfr_json  # type: ignore[import-not-found]
    except ImportError:
        return _split_sections(json.loads(corpus_path.read_text(encoding="utf-8")))
    return list(parse_ecfr_json(corpus_path, corpus="osha-1926").provisions)


# ------------------------------------------------------------------ private fallback splitter

_LEAD = re.compile(r"^((?:\(\s?[A-Za-z0-9]{1,5}\s?\))+)\s*(.*)$")
_INLINE = re.compile(r"^(.{1,160}?(?:\.|—))\s*((?:\(\s?[A-Za-z0-9]{1,5}\s?\))+)\s+(.*)$")
_DEF = re.compile(r"^([A-Z][\w ,()/'’\-]{0,80}?)(?:\s\([^)]*\))?\s+(?:means|is|are|refers)\b")


def _labels(chain: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in re.findall(r"\(\s?([A-Za-z0-9]{1,5})\s?\)", chain))


def _place(
    stack: tuple[str, ...], chain: tuple[str, ...], next_label: str | None = None
) -> tuple[str, ...] | None:
    """Where a leading label chain goes: continue a level's numbering, or open a level at its first value."""
    options = []
    for p in (p for p in label_positions(chain[0]) if p <= len(stack)):
        cand = (*stack[:p], *chain)
        try:
            validate_labels("", cand)
        except Exception:
            continue
        value = label_value(chain[0], p)
        if p == len(stack) and value == 1:
            # '(i)' after '(h)(1)': roman child if the next label is '(ii)', else letter continuation
            rank = 0 if next_label is None or label_value(next_label, p) == 2 or p != 2 else 2
            options.append((rank, -p, cand))
        elif p < len(stack) and value == (label_value(stack[p], p) or 0) + 1:
            options.append((1, -p, cand))
        else:
            options.append((3, -p, cand))
    return min(options)[2] if options else None


def _split_sections(objs: Iterable[dict]) -> list[Provision]:
    """A minimal eCFR-JSON paragraph splitter (for this benchmark only; the scraper is the real one)."""
    out: list[Provision] = []
    order = 0

    def add(**kw: object) -> None:
        nonlocal order
        order += 1
        out.append(Provision(corpus="osha-1926", order=order, **kw))  # type: ignore[arg-type]

    add(id="1926", kind=ProvisionKind.PART)
    seen_sub: set[str] = set()
    for obj in objs:
        sec = obj.get("section", "")
        if not re.fullmatch(r"1926\.\d+", sec):
            continue
        sub_m = None
        for sub_m in re.finditer(r"Subpart ([A-Z]{1,2})\b", obj.get("path", "")):
            pass
        sub = f"1926 Subpart {sub_m.group(1)}" if sub_m else None
        if sub and sub not in seen_sub:
            seen_sub.add(sub)
            add(id=sub, kind=ProvisionKind.SUBPART, parent_id="1926", level=1)
        add(
            id=sec, kind=ProvisionKind.SECTION, parent_id=sub or "1926", level=2, heading=obj.get("title", "")
        )
        stack: tuple[str, ...] = ()
        cur = sec
        texts: dict[str, list[str]] = {}
        meta: dict[str, tuple[str, str, ProvisionKind]] = {}
        notes: Counter[str] = Counter()
        in_defs = False
        lines = [x.strip() for x in obj.get("content", "").split("\n") if x.strip()]
        leads = [_LEAD.match(x) for x in lines]
        for i, line in enumerate(lines):
            m = leads[i]
            nxt = next((_labels(x.group(1))[0] for x in leads[i + 1 :] if x), None)
            placed = _place(stack, _labels(m.group(1)), nxt) if m else None
            if m and placed:
                stack, rest = placed, m.group(2)
                pid = f"{sec}" + "".join(f"({x})" for x in stack)
                meta[pid] = (str(CfrCitation.parse(pid).parent()), "", ProvisionKind.PARAGRAPH)
                cur = pid
                in_defs = rest.lower().startswith("definition")
                im = _INLINE.match(rest)
                child = _place(stack, _labels(im.group(2))) if im else None
                if im and child and len(child) > len(stack):
                    texts.setdefault(pid, []).append(im.group(1))
                    stack, rest = child, im.group(3)
                    cid = f"{sec}" + "".join(f"({x})" for x in stack)
                    meta[cid] = (pid, "", ProvisionKind.PARAGRAPH)
                    cur = cid
                texts.setdefault(cur, []).append(rest)
                continue
            if re.match(r"^(?:Note|NOTE|Exception)", line):
                base = re.sub(r"\[.*\]$", "", cur)
                notes[base] += 1
                nid = f"{base}[Note]" if notes[base] == 1 else f"{base}[Note {notes[base]}]"
                meta[nid] = (base, "", ProvisionKind.NOTE)
                texts.setdefault(nid, []).append(line)
                cur = nid
                continue
            dm = _DEF.match(line) if in_defs and stack else None
            if dm:
                base = f"{sec}" + "".join(f"({x})" for x in stack)
                did = f"{base}[{dm.group(1).strip()}]"
                meta[did] = (base, dm.group(1).strip(), ProvisionKind.DEFINITION)
                texts.setdefault(did, []).append(line)
                cur = did
                continue
            texts.setdefault(cur, []).append(line)
        if sec in texts:
            out[-1] = out[-1].model_copy(update={"text": "\n".join(texts.pop(sec))})
        for pid, (parent, term, kind) in meta.items():
            add(id=pid, kind=kind, parent_id=parent, text="\n".join(texts.get(pid, [])), term=term or None)
    return out


# ------------------------------------------------------------------ scoring


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
