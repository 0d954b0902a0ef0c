"""read_source hands every file to its format's parser with one set of options for the whole ingest."""

from __future__ import annotations

from pathlib import Path

import pytest

from bifrost.graph_builders.jurisdictions.registry import pack_of
from bifrost.graph_builders.scrape.sniff import read_source
from tests.conftest import FIXTURES


@pytest.mark.parametrize("source", ["ecfr/part-9999-mini.xml", "mini/part-mini.json"])
def test_options_of_another_format_are_ignored(source: str, tmp_path: Path) -> None:
    structure = tmp_path / "structure.json"
    structure.write_text('{"identifier": "29", "type": "title", "children": []}', encoding="utf-8")
    doc = read_source(
        FIXTURES / source,
        "osha-1926",
        pack_of("osha-1926").formats,
        structure_path=structure,
        max_tree_bytes=1024,
        margins=(0, 0, 0, 0),
    )
    assert doc.provisions
