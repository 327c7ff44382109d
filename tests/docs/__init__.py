"""Checks of the documentation: README.md and docs/*.md run and hold true."""
