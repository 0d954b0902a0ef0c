"""Answers from ranked provisions: the plan (what to cite and why), the statements quoted from it
(extractive, composed or by a chat model), the verdict of a yes/no question, and the checks on quotes."""
