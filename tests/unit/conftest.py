"""Fixtures shared by unit tests in several folders: the tiny corpus (tests/unit/tiny_corpus.py)."""

from tests.unit.tiny_corpus import questions_file, settings

__all__ = ["questions_file", "settings"]
