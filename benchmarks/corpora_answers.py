"""Answers over several corpora of a home (`ask --corpus a,b` or ``all``), scored by
`bifrost.eval.corpora_answers` as the user reads them: each citation qualified by its corpus against the
gold qualified by the question's corpus (its ``corpus`` field, or ``--default-corpus``), so a recordkeeping
answer padded with construction rules loses precision. The same questions are also answered from their own
corpus alone, in the same run, for the comparison.

    HF_HUB_OFFLINE=1 python -m benchmarks.corpora_answers --home .bifrost-demo --corpora all \\
        -q eval/questions/osha-next-door.jsonl -q eval/questions/osha-natural-dev.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from bifrost.eval.corpora_answers import qualified, score


def main(argv: Sequence[str] | None = None) -> None:
    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings
    from bifrost.eval.questions import own_answers, load_questions

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--corpora", default="all")
    ap.add_argument("--default-corpus", default="osha-1926")
    ap.add_argument("-q", "--questions", type=Path, action="append", required=True)
    args = ap.parse_args(argv)
    bf = Bifrost(Settings(home=args.home))
    out = {}
    try:
        for path in args.questions:
            qs = [q for q in load_questions(path, "jsonl").questions if q.answerable and q.gold]
            several, alone = [], []
            for q in qs:
                corpus = q.extra.get("corpus") or args.default_corpus
                gold = [f"{corpus}:{g}" for g in q.gold]
                exclude = own_answers(q)
                several.append((qualified(bf.ask(q.question, args.corpora, exclude=exclude), corpus), gold))
                alone.append((qualified(bf.ask(q.question, corpus, exclude=exclude), corpus), gold))
            section_of = lambda c, pid: bf.pipeline.parts(c).nav.section.get(pid, pid)  # noqa: E731
            out[path.stem] = {
                args.corpora: score(several, section_of),
                "own corpus alone": score(alone, section_of),
            }
    finally:
        bf.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
