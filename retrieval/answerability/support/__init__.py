"""The answer-support scorer: a small cross-encoder that reads a question with one provision and
scores whether the provision states what the question asks (`model.py` loads and applies it,
`examples.py` builds its training examples, `train.py` fine-tunes it on CPU)."""
