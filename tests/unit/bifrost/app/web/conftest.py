"""The mini corpus (with a script tag in one provision) built once for the web tests."""

from __future__ import annotations

import pytest

from bifrost.app.facade import Bifrost
from bifrost.core.settings import Settings
from tests.unit.mini_corpus import build_corpus, write_script_corpus


@pytest.fixture(scope="package")
def bf(tmp_path_factory) -> Bifrost:
    root = tmp_path_factory.mktemp("web")
    bf = Bifrost(Settings(home=root / "home"))
    build_corpus(bf, "mini", write_script_corpus(root))
    yield bf
    bf.close()
