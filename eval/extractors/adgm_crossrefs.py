"""Precision and recall of the ADGM reference extractor against the hand-checked ObliQA-XRef list.

Usage: python -m bifrost.eval.extractors.adgm_crossrefs [--shared ../shared] [--json] [--no-ranges]
       [--errors N] [--audit eval/extractors/adgm_crossref_audit.csv]

Protocol. Gold = the (SourceID, TargetID) pairs of `crossrefs-dev.csv` with a TargetID, by
ReferenceType (Internal: same document, External: another ADGM document; Outsource rows have no
target and are not scored). Only source passages listed in the CSV are scored, so references found
in unlisted passages are neither right nor wrong; within a listed passage every resolved target
the extractor returns counts, and one not in the gold list is a false positive. A predicted pair
is Internal when source and target share a DocumentID, else External. Dangling references are not
scored. Gold pairs whose TargetID is not a corpus passage (typos such as a trailing `q` in the CSV)
cannot be matched by any extractor: they are left out and counted. The CSV is a gold list only: it
is never loaded into a graph.

Caveat: the CSV holds about half of ObliQA-XRef's rows, and its annotators skip some references
(e.g. most `paragraph 5.6` / range members); a true reference they did not list counts as a false
positive here, so the precision printed is a lower bound (see --errors to audit them).

Audit (--audit FILE, off by default; the raw figures are always printed and never replaced). FILE
is a hand audit of the errors: one row per false positive or negative, columns kind (FP/FN),
source_doc, source_passage, target_doc, target_passage (DocumentID and PassageID as printed,
whitespace squashed), verdict, reason. FP verdicts: `missing-in-gold` (the text does refer to that
passage), `resolution` (right rule, different passage from the CSV), `extractor-error`; FN verdicts:
`extractor-miss`, `gold-error` (the CSV pair is wrong), `resolution`. The audited figures move
`missing-in-gold` FPs to true positives and drop `gold-error` FNs; every other verdict, and every
error the file does not list, stays an error. Audited gold is thus the CSV pairs plus the
`missing-in-gold` rows minus the `gold-error` rows, so a `missing-in-gold` row the extractor does
not return (e.g. a range member under --no-ranges) is an audited false negative. The printout says
how many errors were audited; rows the run does not meet are otherwise ignored.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bifrost.core.settings import Settings
from bifrost.core.types import Provision
from bifrost.graph_builders.jurisdictions.adgm.references import AdgmReferenceExtractor
from bifrost.graph_builders.jurisdictions.adgm.passages_json import document_id_of, parse_adgm_documents

TYPES = ("Internal", "External")
AUDIT_COLUMNS = ("kind", "source_doc", "source_passage", "target_doc", "target_passage", "verdict", "reason")
FP_VERDICTS = ("missing-in-gold", "resolution", "extractor-error")
FN_VERDICTS = ("extractor-miss", "gold-error", "resolution")


@dataclass(frozen=True)
class Score:
    """Counts and rates for one reference type."""

    type: str
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    def as_dict(self) -> dict:
        return {
            "type": self.type,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
        }


def shared_dir(arg: str | None = None) -> Path:
    """--shared, else the shared data folder (BIFROST_SHARED_DIR, else ../shared beside the working
    directory)."""
    return Path(arg) if arg else Settings().resolve_shared_dir() or Path("../shared")


def load_gold(path: Path) -> tuple[set[str], dict[str, set[tuple[str, str]]]]:
    """Listed source ids, and gold (source, target) pairs per reference type (all, unfiltered)."""
    sources: set[str] = set()
    gold: dict[str, set[tuple[str, str]]] = {t: set() for t in TYPES}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            sources.add(row["SourceID"])
            if row["TargetID"] and row["ReferenceType"] in gold:
                gold[row["ReferenceType"]].add((row["SourceID"], row["TargetID"]))
    return sources, gold


def predict(
    provisions: Sequence[Provision], sources: set[str], expand_ranges: bool = True
) -> set[tuple[str, str]]:
    """Resolved (source, target) pairs the extractor finds in the listed source passages."""
    extractor = AdgmReferenceExtractor(expand_ranges=expand_ranges)
    index = extractor.index(provisions)
    pairs = set()
    for p in provisions:
        if p.id in sources:
            pairs.update((r.source_id, r.target_id) for r in extractor.extract(p, index) if r.target_id)
    return pairs


def score(
    predicted: Iterable[tuple[str, str]],
    gold: Mapping[str, set[tuple[str, str]]],
    doc_of: Mapping[str, str | None],
) -> list[Score]:
    """Per type: a prediction's type comes from its documents; a gold pair's from the CSV."""
    out = []
    preds = set(predicted)
    for t in TYPES:
        mine = {(s, g) for s, g in preds if (doc_of.get(s) == doc_of.get(g)) == (t == "Internal")}
        tp = len(mine & gold[t])
        out.append(Score(t, tp, len(mine - gold[t]), len(gold[t] - preds)))
    return out


AuditKey = tuple[str, str, str, str, str]  # kind, source doc, source PassageID, target doc, target PassageID


@dataclass(frozen=True)
class Audited:
    """The audited counts of one type beside how much of the raw error list the audit covers."""

    score: Score
    fp_audited: int
    fn_audited: int
    missing_in_gold: int
    gold_error: int
    missed_audited: int

    def as_dict(self) -> dict:
        return {
            **self.score.as_dict(),
            "fp_audited": self.fp_audited,
            "fn_audited": self.fn_audited,
            "missing_in_gold": self.missing_in_gold,
            "gold_error": self.gold_error,
            "missed_audited": self.missed_audited,
        }


def load_audit(path: Path) -> dict[AuditKey, str]:
    """Verdict per (kind, source_doc, source_passage, target_doc, target_passage) of an audit CSV."""
    out: dict[AuditKey, str] = {}
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in AUDIT_COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise ValueError(f"{path}: audit file lacks columns {missing}; expected {list(AUDIT_COLUMNS)}")
        for n, row in enumerate(reader, start=2):
            kind, verdict = row["kind"], row["verdict"]
            allowed = FP_VERDICTS if kind == "FP" else FN_VERDICTS if kind == "FN" else None
            if allowed is None or verdict not in allowed:
                raise ValueError(
                    f"{path}:{n}: kind {kind!r} with verdict {verdict!r} (FP: {FP_VERDICTS}; FN: "
                    f"{FN_VERDICTS})"
                )
            key = (kind, *(" ".join(row[c].split()) for c in AUDIT_COLUMNS[1:5]))
            out[key] = verdict  # type: ignore[assignment]
    return out


def audited(
    predicted: Iterable[tuple[str, str]],
    gold: Mapping[str, set[tuple[str, str]]],
    doc_of: Mapping[str, str | None],
    heading_of: Mapping[str, str],
    audit: Mapping[AuditKey, str],
) -> list[Audited]:
    """Per type, against audited gold = CSV gold + `missing-in-gold` rows - `gold-error` rows.

    A `missing-in-gold` FP the extractor returns is a true positive; one it no longer returns (a
    row audited in another mode, e.g. a range member under --no-ranges) is a false negative.
    """
    preds = set(predicted)

    def key(kind: str, s: str, t: str) -> AuditKey:
        return (kind, doc_of.get(s) or "", heading_of.get(s, s), doc_of.get(t) or "", heading_of.get(t, t))

    out = []
    for t in TYPES:
        internal = t == "Internal"
        mine = {(s, g) for s, g in preds if (doc_of.get(s) == doc_of.get(g)) == internal}
        fp_v = [audit.get(key("FP", s, g)) for s, g in mine - gold[t]]
        fn_v = [audit.get(key("FN", s, g)) for s, g in gold[t] - preds]
        mig, ge = fp_v.count("missing-in-gold"), fn_v.count("gold-error")
        found = {key("FP", s, g) for s, g in mine}
        missed = sum(
            1
            for k, v in audit.items()
            if v == "missing-in-gold" and (k[1] == k[3]) == internal and k not in found
        )
        tp = len(mine & gold[t])
        score_ = Score(t, tp + mig, len(fp_v) - mig, len(fn_v) - ge + missed)
        out.append(
            Audited(
                score_, sum(v is not None for v in fp_v), sum(v is not None for v in fn_v), mig, ge, missed
            )
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", help="shared data folder (default ../shared)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--no-ranges", action="store_true", help="keep only the ends of 'Rules 4.13.5 to 4.13.8'")
    ap.add_argument(
        "--errors", type=int, default=0, help="print up to N false positives and negatives per type"
    )
    ap.add_argument(
        "--audit", type=Path, help="hand audit of the errors (CSV): also print audited precision/recall"
    )
    args = ap.parse_args(argv)
    root = shared_dir(args.shared) / "corpora" / "adgm"
    provisions = [p for d in parse_adgm_documents(root / "documents") for p in d.provisions]
    sources, all_gold = load_gold(root / "crossrefs-dev.csv")
    ids = {p.id for p in provisions}
    gold = {t: {(s, g) for s, g in pairs if g in ids} for t, pairs in all_gold.items()}
    unknown = {t: len(all_gold[t]) - len(gold[t]) for t in TYPES}
    predicted = predict(provisions, sources, expand_ranges=not args.no_ranges)
    doc_of = {p.id: document_id_of(p) for p in provisions}
    scores = score(predicted, gold, doc_of)
    checked = None
    if args.audit:
        heading_of = {p.id: p.heading for p in provisions}
        checked = audited(predicted, gold, doc_of, heading_of, load_audit(args.audit))
    if args.json:
        out = {
            "sources": len(sources),
            "unknown_gold_targets": unknown,
            "scores": [s.as_dict() for s in scores],
        }
        if checked is not None:
            out["audit"] = str(args.audit)
            out["audited"] = [a.as_dict() for a in checked]
        print(json.dumps(out, indent=2))
    else:
        print(f"{len(sources)} listed source passages; gold targets not in the corpus (left out): {unknown}")
        for i, s in enumerate(scores):
            print(
                f"{s.type:9s} precision {s.precision:.3f} recall {s.recall:.3f}  (tp {s.tp}, fp {s.fp}, fn "
                f"{s.fn})"
            )
            if checked is not None:
                a, c = checked[i], checked[i].score
                print(
                    f"{'  audited':9s} precision {c.precision:.3f} recall {c.recall:.3f}  (tp {c.tp}, fp "
                    f"{c.fp}, fn {c.fn};"
                    f" audited {a.fp_audited}/{s.fp} FPs, {a.fn_audited}/{s.fn} FNs:"
                    f" {a.missing_in_gold} missing-in-gold, {a.gold_error} gold-error;"
                    f" {a.missed_audited} audited references not returned)"
                )
    if args.errors:
        _print_errors(provisions, predicted, gold, doc_of, args.errors)
    return 0


def _print_errors(provisions, predicted, gold, doc_of, n: int) -> None:
    by_id = {p.id: p for p in provisions}

    def show(s: str, t: str) -> str:
        a, b = by_id.get(s), by_id.get(t)
        if a is None or b is None:
            return f"{s} -> {t} | (not a corpus passage)"
        return f"{doc_of[s]}:{a.heading} -> {doc_of[t]}:{b.heading} | {' '.join(a.text.split())[:300]}"

    for t in TYPES:
        internal = t == "Internal"
        fps = sorted(p for p in predicted if (doc_of[p[0]] == doc_of[p[1]]) == internal and p not in gold[t])
        fns = sorted(gold[t] - predicted)
        print(f"\n== {t}: false positives ({len(fps)})", file=sys.stderr)
        for s, g in fps[:n]:
            print("  FP", show(s, g), file=sys.stderr)
        print(f"== {t}: false negatives ({len(fns)})", file=sys.stderr)
        for s, g in fns[:n]:
            print("  FN", show(s, g), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
