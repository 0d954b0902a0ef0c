"""Code shape: small modules with one job, short functions (STYLE.md, "split past ~400 lines").

A module over 400 lines needs a line in its docstring saying why it is "over 400 lines"; no
function or method has a body over 60 lines (docstring included; the signature is the formatter's
to lay out, one parameter a line once it does not fit on one).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the folders of the one installed package
PACKAGES = ("bifrost", "graph_builders", "retrieval", "eval", "training")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
EXCUSE = "over 400 lines"


def modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def long_module(source: str) -> int | None:
    """The line count of a module over the limit whose docstring does not say why, else None."""
    n = len(source.splitlines())
    if n <= MAX_MODULE_LINES:
        return None
    doc = ast.get_docstring(ast.parse(source)) or ""
    return None if EXCUSE in doc else n


def long_functions(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, body length) of every function or method over the limit, nested ones included."""
    return [
        (node.name, node.lineno, n)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (n := node.end_lineno - node.body[0].lineno + 1) > MAX_FUNCTION_LINES
    ]


def test_modules_stay_under_400_lines_or_say_why() -> None:
    too_long = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for p in modules()
        if (n := long_module(p.read_text(encoding="utf-8")))
    ]
    assert not too_long, f"split these or say why in the docstring ({EXCUSE!r}):\n" + "\n".join(too_long)


def test_functions_stay_under_60_lines() -> None:
    too_long = [
        f"{p.relative_to(ROOT)}:{line} {name}: {n} lines"
        for p in modules()
        for name, line, n in long_functions(p.read_text(encoding="utf-8"))
    ]
    assert not too_long, "split these into named steps:\n" + "\n".join(too_long)


def test_the_checks_see_what_they_are_meant_to() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES + 1))
    assert long_functions(f"def f():\n{body}\n") == [("f", 1, MAX_FUNCTION_LINES + 1)]
    assert long_functions("class C:\n" + textwrap.indent(f"def m(self):\n{body}\n", "    "))[0][:2] == (
        "m",
        2,
    )
    filler = "\n" * MAX_MODULE_LINES
    assert long_module(f'"""A module."""\n{filler}') == MAX_MODULE_LINES + 1
    assert long_module(f'"""A module.\n\nIt is {EXCUSE}: one grammar, one table.\n"""\n{filler}') is None
    assert len(modules()) > 50
