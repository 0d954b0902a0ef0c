"""Bifrost core: typed records, errors, settings, stores, embeddings, chat models and prompts (the bottom
layer)."""
