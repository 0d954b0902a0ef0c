"""The home made read-only for real (a read-only bind mount when running as root, who ignores
permission bits, as CI does; write permission removed otherwise): every command says so in one
line naming the database file, nothing stored changes, and once writable again a build completes.
"""

from __future__ import annotations

import pytest

from tests.faults.harness import copy_home, error_line, ok, read_only, run_cli, snapshot, sql_counts
from tests.unit.mini_corpus import MINI

pytestmark = pytest.mark.faults

COMMANDS = [
    ("ingest", str(MINI), "--corpus", "mini"),
    ("build", "navigator", "--corpus", "mini"),
    ("build", "entities", "--corpus", "mini", "--extractor", "offline"),
    ("graph", "stats", "--corpus", "mini"),
]


def test_a_read_only_home_gives_one_line_per_command_and_loses_nothing(mini_home, tmp_path):
    home = copy_home(mini_home, tmp_path / "home")
    files = snapshot(home)
    with read_only(home):
        with pytest.raises(OSError):
            (home / "probe").write_text("x")  # really read-only, also for root
        for args in COMMANDS:
            line = error_line(run_cli(home, *args))
            assert str(home / "bifrost.db") in line and "not writable" in line, line
            assert "sqlalche.me" not in line and "[SQL:" not in line
    assert snapshot(home) == files
    ok(run_cli(home, "build", "navigator", "--corpus", "mini"))
    assert sql_counts(home) == sql_counts(mini_home)
