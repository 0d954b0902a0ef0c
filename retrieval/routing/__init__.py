"""Which corpora of a home answer a question: features read alike for any rulebook, the stored model, and the
router the ask path consults when several corpora are named (`bifrost train router` fits it)."""
