"""Run the extraction scorer: ``python -m eval.extraction score --help``."""

from eval.extraction.cli import main

raise SystemExit(main())
