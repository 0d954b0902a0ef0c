"""Refusals that point, scored by `bifrost.eval.refusal_pointers` on answers the facade gives: for questions
the corpus does not answer that name the part that does (an ``other-part:<part>`` tag), how many are refused
or "not stated" and how many of those name that part.

    HF_HUB_OFFLINE=1 python -m benchmarks.refusal_pointers --home .bifrost-demo \\
        -q eval/questions/osha-near-domain.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from bifrost.eval.refusal_pointers import labelled_part, names_part


def main(argv: Sequence[str] | None = None) -> None:
    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings
    from bifrost.eval.questions import load_questions, own_answers

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("-q", "--questions", type=Path, action="append", required=True)
    args = ap.parse_args(argv)
    bf = Bifrost(Settings(home=args.home))
    rows = []
    try:
        for path in args.questions:
            for q in load_questions(path, "jsonl").questions:
                part = labelled_part(q.extra.get("tags") or [])
                if q.answerable or part is None:
                    continue
                a = bf.ask(q.question, args.corpus, exclude=own_answers(q))
                places = [p.cited for p in a.elsewhere.places] if a.elsewhere else []
                rows.append({"id": q.id, "part": part, "outcome": a.outcome.value, "places": places})
    finally:
        bf.close()
    set_aside = [r for r in rows if r["outcome"] != "answered"]
    named = [r for r in set_aside if names_part(r["places"], r["part"])]
    print(
        json.dumps(
            {
                "labelled": len(rows),
                "refused_or_not_stated": len(set_aside),
                "part_named": len(named),
                "share_named": len(named) / len(set_aside) if set_aside else None,
                "questions": rows,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
