"""What the reader (int8 ONNX cross-encoder) costs at question time, beside the learned ranker's retrieval.

For each question: the ranker's whole retrieval (warm), then the reader scoring its top 20 candidates
(`retrieval.reader.apply.read`, one thread as in `ask`). Prints one JSON object: p50/p90 milliseconds of
each, the reader's p50 as a ratio to the retrieval's, and the resident memory the loaded reader adds.
The reader's scores are not its quality (docs/results.md, "The reader"); only its cost is measured.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.reader_bench --home .bifrost-demo --corpus osha-1926 \
        --reader .bifrost-demo/index/osha-1926/readers/<one of the cross-fitted readers> \
        --questions eval/questions/osha-natural-dev.jsonl --limit 50
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from bifrost.eval.questions import load_questions
from bifrost.retrieval.reader import apply
from bifrost.retrieval.reader.model import Reader, reader_folder


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    return round(sorted(values)[min(len(values) - 1, int(q * len(values)))], 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--corpus", default="osha-1926")
    ap.add_argument("--reader", type=Path, help="a reader folder (default: the home's stored reader)")
    ap.add_argument("--questions", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=50)
    args = ap.parse_args()
    questions = [q.question for q in load_questions(args.questions).questions][: args.limit]
    with Bifrost(Settings(home=args.home)) as bf:
        retriever, lookup = bf.retriever(args.corpus), bf.lookup(args.corpus)
        retriever.retrieve(questions[0])  # warm: indexes and models loaded
        before = rss_mb()
        reader = Reader(args.reader or reader_folder(args.home, args.corpus), threads=1)
        apply.read(reader, questions[0], [it.id for it in retriever.retrieve(questions[0]).items], lookup)
        added = rss_mb() - before
        retrieval_ms, reader_ms = [], []
        for q in questions:
            t0 = time.perf_counter()
            result = retriever.retrieve(q)
            t1 = time.perf_counter()
            apply.read(reader, q, [it.id for it in result.items], lookup)
            t2 = time.perf_counter()
            retrieval_ms.append((t1 - t0) * 1000)
            reader_ms.append((t2 - t1) * 1000)
    print(
        json.dumps(
            {
                "questions": len(questions),
                "read_top": apply.READ_TOP,
                "reader_max_length": reader.card.max_length,
                "retrieval_ms": {"p50": pct(retrieval_ms, 0.5), "p90": pct(retrieval_ms, 0.9)},
                "reader_ms": {"p50": pct(reader_ms, 0.5), "p90": pct(reader_ms, 0.9)},
                "reader_p50_ratio_to_retrieval": round(
                    statistics.median(reader_ms) / statistics.median(retrieval_ms), 2
                ),
                "reader_rss_mb": round(added, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
