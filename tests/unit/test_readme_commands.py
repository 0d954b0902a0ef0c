"""Every `bifrost ...` line of the bash blocks of README.md and docs/*.md parses with the real command line
(nothing runs), and the README stays a README (at most 300 lines).

A README line is read as a user would type it: `\\` continuations joined, `# comments` dropped, and
an optional `[--opt a|b]` written as the plain option with its first value (`--opt a`).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperGroup

from bifrost.app.cli.app import app

try:  # Typer 0.2x runs on its own copy of click
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - older Typer runs on click
    from click.exceptions import UsageError

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_MOST_LINES = 300
_FENCE = re.compile(r"^```bash\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)
_OPTIONAL = re.compile(r"\[(?P<opt>--?[\w-]+)(?:\s+(?P<first>[^\]\s|]+)[^\]]*)?\]")


def readme_command_lines(text: str) -> list[str]:
    """The `bifrost ...` lines of the text's bash blocks, continuations joined, as written."""
    lines: list[str] = []
    for block in _FENCE.finditer(text):
        joined = re.sub(r"\s*\\\n\s*", " ", block["body"])
        lines += [line.strip() for line in joined.splitlines() if line.strip().startswith("bifrost ")]
    return lines


def command_args(line: str) -> list[str]:
    """The arguments after `bifrost`, optional brackets expanded and the trailing comment dropped."""
    plain = _OPTIONAL.sub(lambda m: f"{m['opt']} {m['first'] or ''}".rstrip(), line)
    return shlex.split(plain, comments=True)[1:]


def parse_without_running(args: list[str]) -> typer.Context:
    """Parse `args` level by level (global options, command, subcommand) as `bifrost` would.

    Raises UsageError on an unknown command or option, a missing argument or a bad value.
    """
    ctx = typer.main.get_command(app).make_context("bifrost", list(args), resilient_parsing=False)
    while isinstance(ctx.command, TyperGroup):
        rest = [*ctx._protected_args, *ctx.args]  # a group keeps its subcommand's name apart
        if not rest:
            if ctx.command.invoke_without_command:
                break
            ctx.fail("Missing command.")
        name, command, rest = ctx.command.resolve_command(ctx, rest)
        assert command is not None and name is not None
        ctx = command.make_context(name, rest, parent=ctx, resilient_parsing=False)
    return ctx


LINES = readme_command_lines(README.read_text(encoding="utf-8"))
DOC_LINES = [
    (doc.name, line) for doc in DOCS for line in readme_command_lines(doc.read_text(encoding="utf-8"))
]


def test_the_readme_has_command_lines_to_check() -> None:
    assert len(LINES) >= 10
    # a joined continuation
    assert any(line.startswith("bifrost eval ") and "--systems" in line for line in LINES)


def test_the_readme_has_at_most_300_lines() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")  # as `wc -l` counts them
    assert lines <= README_MOST_LINES, (
        f"README.md has {lines} lines (at most {README_MOST_LINES}): move detail to docs/"
    )


def test_the_docs_have_command_lines_to_check() -> None:
    assert {"operations.md", "results.md"} <= {doc.name for doc in DOCS}
    assert len(DOC_LINES) >= 20


@pytest.mark.parametrize("line", LINES, ids=LINES)
def test_readme_command_line_parses(line: str) -> None:
    try:
        parse_without_running(command_args(line))
    except UsageError as e:
        pytest.fail(f"README line does not parse: {line}\n  {e.format_message()}")


@pytest.mark.parametrize(("doc", "line"), DOC_LINES, ids=[f"{doc}: {line}" for doc, line in DOC_LINES])
def test_docs_command_line_parses(doc: str, line: str) -> None:
    try:
        parse_without_running(command_args(line))
    except UsageError as e:
        pytest.fail(f"docs/{doc} line does not parse: {line}\n  {e.format_message()}")


def test_optional_brackets_become_the_plain_option_with_its_first_value() -> None:
    line = "bifrost build entities --corpus c [--extractor offline|llm] [--json] # comment"
    assert command_args(line) == ["build", "entities", "--corpus", "c", "--extractor", "offline", "--json"]


@pytest.mark.parametrize(
    "line",
    [
        'bifrost ask "q" --corpus osha-1926 --store neo4j',  # a global option after the command
        "bifrost graph stats --corpus osha-1926 --no-such-option",
        "bifrost no-such-command --corpus osha-1926",
        "bifrost graph no-such-subcommand",
        "bifrost graph show",  # its provision id is missing
    ],
)
def test_a_bad_line_is_refused(line: str) -> None:
    with pytest.raises(UsageError):
        parse_without_running(command_args(line))
