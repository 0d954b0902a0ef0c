"""The whole-corpus test home, built once per run: 29 CFR 1926 ingested, both graphs (offline extractor),
OSHA's letters of interpretation as precedents, one question answered (its indexes written).
`scripts/run-tests.sh` builds it before pytest starts (no test's timeout then covers a build of many minutes)
and passes it as BIFROST_TEST_OSHA_HOME; the `osha_home` fixture builds it itself when run without that.

    python -m tests.osha_home FOLDER   # build into FOLDER, printing each step's time
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path


def build_osha_home(home: Path, shared_dir: Path, say: Callable[[str], None] = lambda _m: None) -> Path:
    """Build the test home in ``home`` (an empty folder) from ``shared_dir``; ``home``."""
    from bifrost.app.facade import Bifrost
    from bifrost.core.settings import Settings

    bf = Bifrost(Settings(home=home, shared_dir=shared_dir))
    letters = shared_dir / "precedents" / "osha-letters-1926.jsonl"
    steps = [
        ("ingest osha-1926", lambda: bf.ingest("osha-1926")),
        ("navigator", lambda: bf.build_navigator("osha-1926")),
        ("entities (offline)", lambda: bf.build_entities("osha-1926", "offline")),
    ]
    if letters.is_file():  # as `make demo`: OSHA's answered questions beside the rule text
        steps.append(("precedents", lambda: bf.import_precedents(letters, "osha-1926", issuer="OSHA")))
    # the indexes a first question builds (the precedents' vectors among them): no copy builds them again
    steps.append(("first answer", lambda: bf.ask("What does this regulation require?", "osha-1926")))
    try:
        for name, step in steps:
            start = time.perf_counter()
            step()
            say(f"osha test home: {name} {time.perf_counter() - start:.0f} s")
    finally:
        bf.close()
    return home


def main(argv: list[str]) -> int:
    from tests.conftest import find_shared_dir

    shared = find_shared_dir()
    if len(argv) != 1 or shared is None:
        print(
            "usage: python -m tests.osha_home FOLDER (with ../shared or BIFROST_SHARED_DIR)", file=sys.stderr
        )
        return 2
    home = Path(argv[0])
    home.mkdir(parents=True, exist_ok=True)
    build_osha_home(home, shared, lambda m: print(m, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
