"""Training and cross-validating the learned ranker on question sets (`bifrost train ranker`)."""
