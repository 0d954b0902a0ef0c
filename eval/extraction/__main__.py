"""Run the extraction scorer: ``python -m bifrost.eval.extraction score --help``."""

from bifrost.eval.extraction.cli import main

raise SystemExit(main())
