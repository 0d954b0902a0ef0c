"""What the facade adds for editions: the recorded editions of a corpus, one by number or date, the one a
question is answered from, what changed between two, and a provision's earlier versions. A mixin of `Bifrost`;
it uses the facade's ``sql`` and ``require_corpus``."""

from __future__ import annotations

from bifrost.core.store.edition_diff import EditionDiff, diff_editions
from bifrost.core.types import Edition, Provision


class EditionsApi:
    """Editions of a corpus and the provisions' history."""

    def editions(self, corpus: str) -> list[Edition]:
        """Recorded editions of a corpus, oldest first."""
        self.require_corpus(corpus)
        return self.sql.editions(corpus)

    def edition(self, corpus: str, spec: str | int | None = None) -> Edition:
        """An edition by number (``2``) or by date (``2025-01-01`` or ``20250101``: the one valid on it);
        the current one, valid today, when spec is None."""
        from bifrost.core.store.editions import edition_spec

        self.require_corpus(corpus)
        if spec is None:
            return self.sql.current_edition(corpus)
        number, when = edition_spec(spec)
        return self.sql.edition(corpus, number, when)

    def _as_of(self, corpus: str, as_of: str | None) -> Edition:
        """The edition to answer from: the one ``as_of`` names, else the current one (so that no date and
        today's date agree). The pipeline reads it from the provisions table when the table holds it, else
        from the history, as after ``ingest --allow-older``. NotFoundError before the first edition."""
        return self.sql.current_edition(corpus) if as_of is None else self.edition(corpus, as_of)

    def diff(self, corpus: str, old: str | int | None = None, new: str | int | None = None) -> EditionDiff:
        """What changed from one edition to another (default: from the previous edition to the current
        one)."""
        to = self.edition(corpus, new)
        since = (
            self.edition(corpus, old) if old is not None else self.sql.edition(corpus, max(to.number - 1, 0))
        )
        return diff_editions(self.sql, corpus, since, to)

    def history(self, corpus: str, provision_id: str) -> list[tuple[int, int, str, Provision]]:
        """Earlier versions of a provision, newest first: (valid_from, valid_to, change, provision)."""
        self.require_corpus(corpus)
        return self.sql.versions_of(corpus, provision_id)
