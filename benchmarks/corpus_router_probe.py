"""Probe: which rulebook of a home answers a question, learned from OSHA's letters (issue 60; not a product
part).

Each letter's title is a question; the corpora it answers are those holding a part it cites (Part 1926 ->
``osha-1926``, Parts 1900-1909 -> ``osha-1900-1909``; a letter citing only Part 1910 is answered by none of
them). Citations are cut out of the titles first ("Application of 1910.106 to ..." would give its part away; a
user's question rarely names one). Per (question, corpus), columns that read any rulebook alike: the best and
the fifth-best cosine between the question and the corpus's provisions, and the best BM25 term coverage
(IDF-weighted share of the question's terms one provision holds); with ``--letters`` also the share of the
question's ten nearest other letters that cite the corpus. A logistic regression over the letters' rows
scores each corpus; a question goes to the likeliest corpus (its first choice is reported, and how well the
likeliest corpus's probability tells a question no corpus answers: its AUROC). Scored on question sets never
fitted on, each with the corpus that answers it (``corpus`` field, else ``--default-corpus``; unanswerable
questions tagged ``part-1910`` or ``other-part:1910`` should go to none).

    HF_HUB_OFFLINE=1 python -m benchmarks.corpus_router_probe --home H \\
        -q eval/questions/osha-next-door.jsonl -q eval/questions/osha-natural-dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.core.store.precedent_tables import load_precedents
from bifrost.eval.questions import load_questions

CITE = re.compile(r"(?:\b(?:29\s*CFR|Part|Parts|Subpart|§+)\s*)?\b\d{4}(?:\.\d+\w*)?(?:\([^)]*\))*", re.I)
PARTS = {"osha-1926": ("1926",), "osha-1900-1909": tuple(str(n) for n in range(1900, 1910))}
NONE = "none"


def stripped(title: str) -> str:
    return " ".join(CITE.sub(" ", title).split())


def answering(cited_parts: set[str], corpora: list[str]) -> set[str]:
    return {c for c in corpora if any(p in cited_parts for p in PARTS.get(c, ()))}


def columns(bf: Bifrost, corpora: list[str], texts: list[str]) -> dict[str, np.ndarray]:
    """Per corpus, (questions, 3): best cosine, fifth-best cosine, best weighted BM25 coverage."""
    vectors = bf.embedder.embed(texts)
    out = {}
    for c in corpora:
        parts = bf.pipeline.parts(c)
        matrix = np.asarray(parts.channels.dense._matrix)
        cos = vectors @ matrix.T
        top = -np.sort(-cos, axis=1)[:, :5]
        cover = np.array([float(parts.channels.bm25.coverage(t)[1].max()) for t in texts])
        out[c] = np.column_stack([top[:, 0], top[:, 4], cover])
    return out


def nearest_letters(vectors: np.ndarray, letters: np.ndarray, cited: list[set[str]], corpora, own=None):
    """Per question and corpus, the share of its ten nearest letters (never itself) citing that corpus."""
    sims = vectors @ letters.T
    if own is not None:
        sims[np.arange(len(own)), own] = -np.inf
    near = np.argsort(-sims, axis=1)[:, :10]
    return {c: np.array([np.mean([c in cited[j] for j in row]) for row in near]) for c in corpora}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("-q", "--questions", type=Path, action="append", required=True)
    ap.add_argument("--default-corpus", default="osha-1926")
    ap.add_argument("--letters", action="store_true", help="add the nearest letters' share as a column")
    args = ap.parse_args()
    from sklearn.linear_model import LogisticRegression

    bf = Bifrost(Settings(home=args.home))
    corpora = bf.corpora()
    with bf.sql.session() as s:
        bank = load_precedents(s, "osha-1926")  # every letter of the home, whatever it cites
    titles = [stripped(p.title) for p in bank]
    cited = [answering({c.written.split(".")[0].split()[0] for c in p.cites}, corpora) for p in bank]
    keep = [i for i, t in enumerate(titles) if len(t.split()) >= 3]
    titles, cited = [titles[i] for i in keep], [cited[i] for i in keep]
    train = columns(bf, corpora, titles)
    letter_vectors = bf.embedder.embed(titles)
    if args.letters:
        share = nearest_letters(letter_vectors, letter_vectors, cited, corpora, own=np.arange(len(titles)))
        train = {c: np.column_stack([train[c], share[c]]) for c in corpora}
    x = np.vstack([train[c] for c in corpora])
    y = np.concatenate([[c in cited[i] for i in range(len(titles))] for c in corpora]).astype(int)
    model = LogisticRegression(max_iter=1000).fit(x, y)
    print(
        json.dumps(
            {
                "letters": len(titles),
                "by_corpus": Counter(c for s in cited for c in s),
                "answered_by_none": sum(1 for s in cited if not s),
            }
        )
    )
    for path in args.questions:
        qs = load_questions(path).questions
        texts = [q.question for q in qs]
        cols = columns(bf, corpora, texts)
        if args.letters:
            share = nearest_letters(bf.embedder.embed(texts), letter_vectors, cited, corpora)
            cols = {c: np.column_stack([cols[c], share[c]]) for c in corpora}
        p = np.column_stack([model.predict_proba(cols[c])[:, 1] for c in corpora])
        routed = [corpora[int(np.argmax(row))] for row in p]
        tally: Counter[str] = Counter()
        top: dict[bool, list[float]] = {True: [], False: []}
        for q, r, row in zip(qs, routed, p):
            tags = " ".join(q.extra.get("tags") or [])
            want = (
                (q.extra.get("corpus") or args.default_corpus)
                if q.answerable
                else (NONE if "1910" in tags else None)
            )
            if want is None:
                continue
            tally[f"{want}: n"] += 1
            tally[f"{want}: first choice right"] += r == want
            top[want == NONE].append(float(row.max()))
        print(
            path.stem,
            dict(sorted(tally.items())),
            {k: round(float(np.mean(v)), 3) for k, v in top.items() if v},
        )
        if top[True] and top[False]:
            from sklearn.metrics import roc_auc_score

            auc = roc_auc_score(
                [0] * len(top[False]) + [1] * len(top[True]), [-v for v in top[False] + top[True]]
            )
            print(path.stem, "AUROC of the likeliest corpus's probability, none against some:", round(auc, 3))


if __name__ == "__main__":
    main()
