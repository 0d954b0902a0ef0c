"""How `ask`'s verdicts fare on labelled yes/no questions: per question set, how many are labelled, how many
get a verdict, right and wrong ones (a yes or no where the label differs; any verdict on a question the corpus
does not answer), each question answered as `ask` answers it with its own precedent left out.

    HF_HUB_OFFLINE=1 python -m bifrost.eval.verdicts --home .bifrost-demo -q
    eval/questions/osha-natural-dev.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def tally(pairs: Sequence[tuple[dict[str, Any], str | None]]) -> dict[str, Any]:
    """Figures of (question, verdict given) pairs: labelled, given, right, wrong, wrong ones named."""
    labelled = [(q, got) for q, got in pairs if q.get("verdict") or q.get("answerable") is False]
    given = [(q, got) for q, got in labelled if got is not None]
    wrong = [
        (q, got)
        for q, got in given
        if q.get("answerable") is False or (got in ("yes", "no") and got != q.get("verdict"))
    ]
    right = [(q, got) for q, got in given if q.get("answerable") is not False and got == q.get("verdict")]
    return {
        "labelled": sum(1 for q, _ in labelled if q.get("verdict")),
        "given": len(given),
        "right": len(right),
        "wrong": len(wrong),
        "depends_given": sum(got == "depends" for _, got in given),
        "wrong_ids": [
            f"{q['id']}: said {got}, label {q.get('verdict') or 'unanswerable'}" for q, got in wrong
        ],
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("-q", "--questions", type=Path, action="append", required=True)
    ap.add_argument("--corpus", default="osha-1926")
    args = ap.parse_args(argv)
    from bifrost.core.resources import Resources
    from bifrost.core.settings import Settings
    from bifrost.retrieval.config import RetrievalConfig
    from bifrost.retrieval.pipeline import AskPipeline

    settings = Settings(home=args.home)
    resources = Resources(settings)
    # as `ask` answers, current edition
    pipe = AskPipeline(resources, RetrievalConfig.from_settings(settings))
    out = {}
    try:
        for path in args.questions:
            rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            pairs = []
            for q in rows:
                if not (q.get("verdict") or q.get("answerable") is False):
                    continue
                own = [q["id"], *(q[k] for k in ("source_url", "url") if q.get(k))]
                a = pipe.ask(q["question"], args.corpus, exclude=own)
                pairs.append((q, a.verdict.value if a.verdict else None))
            out[path.name] = tally(pairs)
    finally:
        resources.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
