"""Benchmarks printed by `make bench`, one `name value` line per figure; docs/benchmarks.md says
what each figure measures, the module that prints it and its last measured range."""
