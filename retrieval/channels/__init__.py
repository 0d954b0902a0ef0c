"""The retrieval channels of a corpus, each scoring every provision for a question: BM25,
dense, the Entity Network's entities and triples, and precedents; `base.Channels` gathers them per corpus."""
