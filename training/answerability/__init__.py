"""Training the answerability model and the support scorer, and validating the refusal threshold."""
