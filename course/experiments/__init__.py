"""Reproductions of the source papers' experiments (placeholder, see cli.py)."""
