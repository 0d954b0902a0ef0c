"""A home with two corpora (the mini part, and `secret`, whose words carry a marker) for the team tests."""

from __future__ import annotations

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.unit.mini_corpus import MINI, build_corpus, write_marked_corpus


@pytest.fixture(scope="package")
def two_corpora(tmp_path_factory) -> Bifrost:
    root = tmp_path_factory.mktemp("team")
    bf = Bifrost(Settings(home=root / "home"))
    build_corpus(bf, "mini", MINI)
    build_corpus(bf, "secret", write_marked_corpus(root))
    yield bf
    bf.close()
