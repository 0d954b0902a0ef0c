"""The question figure reader scored against a hand-labelled sample (`scoring.py`)."""
