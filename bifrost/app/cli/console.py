"""The two Rich consoles of the CLI: results on stdout, messages and progress on stderr.

When output goes to a pipe or file, lines are not wrapped at 80 columns and tables get room.
"""

from __future__ import annotations

import sys

from rich.console import Console


def _width(stream) -> int | None:
    return None if stream.isatty() else 200


out = Console(soft_wrap=True, width=_width(sys.stdout))
err = Console(stderr=True, soft_wrap=True, width=_width(sys.stderr))
