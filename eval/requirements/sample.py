"""Draw the labelled sample of rule sentences: seeded, stratified so that quantities are common enough to
measure (half drawn among sentences with a figure), from one corpus of a home. The labels are written by
hand into ``labels/<corpus>.jsonl`` before any extractor is run on them.

    python -m bifrost.eval.requirements.sample --home H --corpus osha-1926 --n 150 --with-figure 60 --out F
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from bifrost.core.settings import Settings
from bifrost.core.store.sql_store import SqlStore
from bifrost.core.sentences import sentences

RULE = re.compile(
    r"\b(shall|must|may|need not|is not required|are not required|is prohibited|are prohibited|"
    r"does not apply|do not apply|is required|are required)\b",
    re.I,
)
FIGURE = re.compile(r"\d")


def rule_sentences(sql: SqlStore, corpus: str) -> list[tuple[str, int, str]]:
    out = []
    for p in sql.provisions(corpus):
        for i, s in enumerate(sentences(p.text)):
            if RULE.search(s) and 20 <= len(s) <= 600:
                out.append((p.id, i, s))
    return out


def draw(pool: list[tuple[str, int, str]], n: int, with_figure: int, seed: int) -> list[tuple[str, int, str]]:
    rng = random.Random(seed)
    figured = [x for x in pool if FIGURE.search(re.sub(r"§\s*\d[\d.()a-z]*|\(\w{1,4}\)", "", x[2]))]
    first = rng.sample(figured, with_figure)
    rest = rng.sample([x for x in pool if x not in first], n - with_figure)
    return sorted(first + rest)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--n", type=int, default=150)
    ap.add_argument("--with-figure", type=int, default=60)
    ap.add_argument("--seed", type=int, default=45)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="A sample already drawn: none of its sentences",
    )
    a = ap.parse_args()
    sql = SqlStore(Settings(home=a.home).sql_url)
    taken = {
        (r["provision"], r["sentence"])
        for path in a.exclude
        for r in map(json.loads, path.read_text().splitlines())
    }
    pool = [x for x in rule_sentences(sql, a.corpus) if (x[0], x[1]) not in taken]
    rows = draw(pool, a.n, a.with_figure, a.seed)
    with a.out.open("w") as f:
        for pid, i, s in rows:
            f.write(json.dumps({"corpus": a.corpus, "provision": pid, "sentence": i, "text": s}) + "\n")
    print(f"{len(rows)} sentences -> {a.out}")


if __name__ == "__main__":
    main()
