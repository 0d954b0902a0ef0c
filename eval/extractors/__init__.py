"""Evaluations of one jurisdiction pack's reference extractor against that pack's gold lists (the CFR sample,
ObliQA-XRef for ADGM): the only modules outside a pack allowed to read one (pyproject's import contract)."""
