"""Precedents: a regulator's answered questions (letters of interpretation, FAQs, guidance Q&As, reviewed
answers) read from JSONL or CSV and resolved against a corpus with its citation grammar."""
