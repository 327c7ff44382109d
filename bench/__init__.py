"""Benchmarks printed by `make bench`, one `name value` line per figure."""
