"""What a user waits for: each question asked once, as a new question, in a fresh order, through the facade
(after a few warm-up questions of another set), with the seconds of every stage (`Answer.timings`: each
gathering channel, pool and features, ranking, answerability, decision, plan, composition) and, in the same
process, the RRF baseline's search time for the same question (BM25 and dense scores fused), so that ratios
hold on a loaded machine. p50, p95 and max overall and by question length.

    HF_HUB_OFFLINE=1 python -m benchmarks.new_questions --home .bifrost-demo \\
        -q ../shared/eval/osha-real-dev.jsonl -q ../shared/eval/osha-site-questions.jsonl --seed 1
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

LENGTHS = ((0, 240), (240, 600), (600, 10**9))
"""Question length bands (characters): short, the median real question, the long backstories."""


def percentile(xs: Sequence[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))] if xs else 0.0


def read_questions(paths: Sequence[Path]) -> list[str]:
    out: list[str] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["question"])
    return list(dict.fromkeys(out))


def rrf_seconds(bf, corpus: str, question: str) -> float:
    """The RRF baseline's search for one question: BM25 and dense over the corpus, fused."""
    from bifrost.retrieval.fusion import rrf_fuse
    import numpy as np

    channels = bf.pipeline.parts(corpus).channels
    t0 = time.perf_counter()
    ids = channels.ids
    lists = [
        [ids[i] for i in np.argsort(-s, kind="stable")[:100]]
        for s in (channels.bm25.score_all(question), channels.dense.score_all(question))
    ]
    rrf_fuse(lists)
    return time.perf_counter() - t0


def measure(home: Path, corpus: str, questions: list[str], warm: list[str]) -> list[dict]:
    """Per question: its length, the facade's seconds, each stage's, and RRF's."""
    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings

    bf = Bifrost(Settings(home=home))
    rows = []
    try:
        for q in warm:
            bf.ask(q, corpus=corpus)
        for q in questions:
            t0 = time.perf_counter()
            answer = bf.ask(q, corpus=corpus)
            total = time.perf_counter() - t0
            rows.append(
                {
                    "chars": len(q),
                    "seconds": total,
                    "stages": answer.timings,
                    "rrf": rrf_seconds(bf, corpus, q + " "),  # a new text: the embedder has not seen it
                }
            )
    finally:
        bf.close()
    return rows


def summarize(rows: list[dict]) -> dict:
    def band(rs: list[dict]) -> dict:
        times = [r["seconds"] for r in rs]
        stages = sorted({k for r in rs for k in r["stages"]})
        return {
            "n": len(rs),
            "p50_ms": round(1000 * percentile(times, 0.5), 1),
            "p95_ms": round(1000 * percentile(times, 0.95), 1),
            "max_ms": round(1000 * max(times), 1) if times else 0.0,
            "rrf_p50_ms": round(1000 * percentile([r["rrf"] for r in rs], 0.5), 1),
            "stages_p50_ms": {
                k: round(1000 * statistics.median(r["stages"].get(k, 0.0) for r in rs), 1) for k in stages
            },
        }

    out = {"all": band(rows)}
    for lo, hi in LENGTHS:
        inside = [r for r in rows if lo <= r["chars"] < hi]
        if inside:
            out[f"{lo}-{hi if hi < 10**9 else ''} chars"] = band(inside)
    rrf = out["all"]["rrf_p50_ms"]
    out["ratio_p50_to_rrf"] = round(out["all"]["p50_ms"] / rrf, 2) if rrf else None
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("-q", "--questions", type=Path, action="append", required=True)
    ap.add_argument("--warm-from", type=Path, default=Path("eval/questions/osha-natural-train.jsonl"))
    ap.add_argument("--warm", type=int, default=3, help="Warm-up questions, from --warm-from")
    ap.add_argument("--limit", type=int, default=0, help="At most this many questions (0: all)")
    ap.add_argument("--seed", type=int, default=0, help="The order questions are asked in")
    args = ap.parse_args(argv)
    questions = read_questions(args.questions)
    random.Random(args.seed).shuffle(questions)
    if args.limit:
        questions = questions[: args.limit]
    warm = [q for q in read_questions([args.warm_from]) if q not in set(questions)][: args.warm]
    rows = measure(args.home, args.corpus, questions, warm)
    print(json.dumps(summarize(rows), indent=2))


if __name__ == "__main__":
    main()
