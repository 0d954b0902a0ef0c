"""Training the corpus router (`bifrost train router`)."""
