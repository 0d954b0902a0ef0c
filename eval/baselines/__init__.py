"""Baselines only evaluation runs: reciprocal rank fusion of BM25 and dense, a cross-encoder reranker, and a
chat model naming provisions from memory (the production channels are in `bifrost.retrieval.channels`)."""
