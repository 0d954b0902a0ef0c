"""From channel scores to one ranked list: the hand-set hybrid (`hybrid.py`, over `retrieval/fusion.py`'s
reciprocal-rank fusion), the learned ranker's candidates, features and model (`ltr/`), and the provisions a
question names put first."""
