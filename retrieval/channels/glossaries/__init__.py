"""Glossaries shipped with Bifrost (site words = the words a rulebook uses), read by name with
`importlib.resources`; see `bifrost.retrieval.channels.glossary`."""
