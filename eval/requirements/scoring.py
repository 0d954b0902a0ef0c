"""Score requirement extraction against the labelled sample: quantity conditions (comparator, and the value in
base units within 2%) and exceptions (by cue), precision and recall over every sentence, per corpus.

    python -m bifrost.eval.requirements.scoring [--labels eval/requirements/labels] [--json] [--misses]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from bifrost.core.quantities import normalize
from bifrost.graph_builders.requirements.read import exceptions_of, read_sentence

LABELS = Path(__file__).parent / "labels"
CUES = {"do not apply": "does not apply", "shall not apply": "does not apply", "exception": "except"}


def _key(comparator: str, value: float, unit: str) -> tuple[str, str, float] | None:
    magnitude, dimension = normalize(value, unit)
    if magnitude is None:
        return None
    return ("" if comparator == "=" else comparator, dimension, magnitude)


def _same(a: tuple[str, str, float], b: tuple[str, str, float]) -> bool:
    return a[0] == b[0] and a[1] == b[1] and abs(a[2] - b[2]) <= 0.02 * max(abs(a[2]), abs(b[2]), 1e-12)


def match(gold: list, found: list) -> int:
    """How many of ``found`` pair with a distinct item of ``gold`` (greedy: keys are exact up to rounding)."""
    left, hits = list(gold), 0
    for f in found:
        for i, g in enumerate(left):
            if _same(f, g):
                hits += 1
                del left[i]
                break
    return hits


def score(path: Path, misses: bool = False) -> dict:
    q = Counter()
    e = Counter()
    missed: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        req = read_sentence(row["corpus"], row["provision"], row["sentence"], row["text"])
        found_q = [k for c in (req.conditions if req else ()) if (k := _key(c.comparator, c.value, c.unit))]
        gold_q = [k for g in row["quantities"] if (k := _key(g["comparator"], g["value"], g["unit"]))]
        hit = match(gold_q, found_q)
        q.update(tp=hit, found=len(found_q), gold=len(gold_q))
        found_e = Counter(x.cue for x in exceptions_of(row["text"]))
        gold_e = Counter(CUES.get(x["cue"], x["cue"]) for x in row["exceptions"])
        e.update(tp=sum((found_e & gold_e).values()), found=sum(found_e.values()), gold=sum(gold_e.values()))
        if misses and (hit != len(gold_q) or hit != len(found_q) or found_e != gold_e):
            missed.append(
                f"{row['provision']}: gold q {gold_q} found {found_q}; gold e {dict(gold_e)} found "
                f"{dict(found_e)}\n  {row['text'][:200]}"
            )

    def prf(c: Counter) -> dict:
        p = c["tp"] / c["found"] if c["found"] else 1.0
        r = c["tp"] / c["gold"] if c["gold"] else 1.0
        return {
            "precision": round(p, 3),
            "recall": round(r, 3),
            "gold": c["gold"],
            "found": c["found"],
            "right": c["tp"],
        }

    out = {
        "sentences": len(path.read_text(encoding="utf-8").splitlines()),
        "quantities": prf(q),
        "exceptions": prf(e),
    }
    if misses:
        out["misses"] = missed
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--misses", action="store_true")
    a = ap.parse_args()
    results = {p.stem: score(p, a.misses) for p in sorted(a.labels.glob("*.jsonl"))}
    if a.json:
        print(json.dumps(results, indent=1))
        return
    for corpus, r in results.items():
        print(
            f"{corpus}: {r['sentences']} sentences; quantities P {r['quantities']['precision']} R "
            f"{r['quantities']['recall']} "
            f"({r['quantities']['right']}/{r['quantities']['found']} found, {r['quantities']['gold']} "
            "labelled); "
            f"exceptions P {r['exceptions']['precision']} R {r['exceptions']['recall']} "
            f"({r['exceptions']['right']}/{r['exceptions']['found']}, {r['exceptions']['gold']})"
        )
        for m in r.get("misses", []):
            print("  " + m)


if __name__ == "__main__":
    main()
