"""Measuring entity and triple extraction against hand-annotated gold (P/R/F1, Tables 7-8 style).

`gold` reads the annotation file, `matching` holds the matching rules, `scoring` the pure
P/R/F1 arithmetic, `cli` the `python -m bifrost.eval.extraction score` command.
"""
