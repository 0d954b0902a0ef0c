"""Benchmark: what a cross-encoder re-ranking stage would cost at question time, beside the learned
ranker's whole retrieval in the same run.

A MiniLM-L6 cross-encoder reads each (question, candidate) pair through the same 6-layer transformer
the embedding model is; its classification head is one dot product. So the cost of scoring the
ranker's top K is measured as one forward pass of the embedding model (sentence-transformers on torch,
256-token limit, one thread as in `ask`) over the K texts "question + candidate", batched as a
cross-encoder would be.
No cross-encoder weights are needed (none ships offline); only the cost is measured, not quality.

`.venv/bin/python -m benchmarks.cross_encoder_cost --home <home with a trained ranker> --corpus adgm
--questions ../shared/eval/obliqa/ObliQA_dev.json --limit 100 --top 20,50`
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from bifrost.app.facade import Bifrost
from bifrost.core.embeddings import resolve_model
from bifrost.core.settings import Settings
from bifrost.eval.questions import load_questions
from bifrost.retrieval.channels.documents import build_documents


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--home", type=Path, required=True, help="BIFROST_HOME with the corpus built and a ranker trained"
    )
    ap.add_argument("--corpus", default="adgm")
    ap.add_argument("--questions", type=Path, default=Path("../shared/eval/obliqa/ObliQA_dev.json"))
    ap.add_argument("--limit", type=int, default=100, help="At most this many questions")
    ap.add_argument(
        "--top", default="20,50", help="Comma list of how many of the ranker's candidates to re-score"
    )
    args = ap.parse_args()
    tops = sorted({int(t) for t in args.top.split(",") if t.strip()})
    shared = Settings().resolve_shared_dir()
    qset = load_questions(
        args.questions, documents_dir=(shared / "corpora/adgm/documents") if shared else None
    )
    questions = [q.question for q in qset.questions][: args.limit]
    settings = Settings(home=args.home)
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(settings.embedding_threads or 1)
    encoder = SentenceTransformer(resolve_model(settings.embedding_model), device="cpu")
    bf = Bifrost(settings)
    try:
        retriever = bf.retriever(args.corpus)
        docs = build_documents(bf.resources.sql.provisions(args.corpus), "context")
        text = dict(zip(docs.ids, docs.texts))
        deeper = bf.retrieval_config.model_copy(update={"top_n": max(tops)})
        retriever.retrieve(questions[0], deeper)  # warm caches and models
        encoder.encode([questions[0]])
        retrieve_ms: list[float] = []
        rescore_ms: dict[int, list[float]] = {k: [] for k in tops}
        for q in questions:
            t = time.perf_counter()
            result = retriever.retrieve(q, deeper)
            retrieve_ms.append((time.perf_counter() - t) * 1000)
            ids = [it.id for it in result.items]
            for k in tops:
                pairs = [f"{q} {text.get(pid, '')}" for pid in ids[:k]]
                t = time.perf_counter()
                encoder.encode(pairs, batch_size=len(pairs) or 1)
                rescore_ms[k].append((time.perf_counter() - t) * 1000)
        base = statistics.median(retrieve_ms)
        print(
            json.dumps(
                {
                    "benchmark": "cross-encoder re-scoring cost",
                    "corpus": args.corpus,
                    "questions": len(questions),
                    "retriever": type(retriever).__name__,
                    "retrieve_p50_ms": round(base, 1),
                    "rescore": [
                        {
                            "top": k,
                            "p50_ms": round(statistics.median(v), 1),
                            "p50_ratio_to_retrieve": round(statistics.median(v) / base, 2),
                        }
                        for k, v in rescore_ms.items()
                    ],
                },
                indent=2,
            )
        )
    finally:
        bf.close()


if __name__ == "__main__":
    main()
