"""Baseline rankers for evaluation: BM25, dense, reciprocal rank fusion and a cross-encoder reranker."""
