"""Requirement extraction against a labelled sample: drawing the sample (`sample`), scoring (`scoring`)."""
