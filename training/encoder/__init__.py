"""A corpus-adapted sentence encoder, fine-tuned on pairs the corpus gives for free (no labels, no LLM)."""
