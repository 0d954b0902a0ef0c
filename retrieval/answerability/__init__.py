"""Whether the ranked provisions state what a question asks: question kinds and facts, the features
and the stored model (card) that judge it, the support scorer, and the outcome (answered, not stated,
refused)."""
