"""The test suite's own guard: a missing service, file or package is a visible skip on a developer
machine and a failure under ``CI=true``; the shared data folder is located in one place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


def test_a_missing_requirement_fails_under_ci_and_is_a_visible_skip_elsewhere(monkeypatch):
    from tests.conftest import import_or_skip, skip_or_fail

    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no such data"):
        skip_or_fail("no such data")
    with pytest.raises(pytest.fail.Exception, match=r"bifrost-rag\[ltr\]"):
        import_or_skip("no_such_module_for_bifrost", "ltr")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="no such data"):
        skip_or_fail("no such data")
    assert import_or_skip("json", "test").dumps([]) == "[]"


def test_no_test_skips_on_a_missing_package_without_the_ci_guard():
    unguarded = [
        str(p.relative_to(ROOT))
        for p in TESTS.rglob("*.py")
        if "pytest.importorskip(" in p.read_text(encoding="utf-8") and p.name != Path(__file__).name
    ]
    assert not unguarded, "use tests.conftest.import_or_skip (fails under CI=true):\n" + "\n".join(unguarded)


def test_only_the_tests_conftest_locates_the_shared_folder():
    locate = re.compile(r"environ(?:\.get)?\(\s*[\"']BIFROST_SHARED_DIR|/ [\"']shared[\"']")
    elsewhere = [
        str(p.relative_to(ROOT))
        for p in TESTS.rglob("*.py")
        if p != TESTS / "conftest.py" and locate.search(p.read_text(encoding="utf-8"))
    ]
    assert not elsewhere, "use the shared_dir fixture of tests/conftest.py:\n" + "\n".join(elsewhere)
