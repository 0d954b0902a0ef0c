"""Requirement records from rule sentences (issue 45): `read` reads one sentence; `build` every provision."""
