"""Helpers for tests and benchmarks, outside the production package: ``launcher`` starts real
server processes (``ServerProcess``) on free ports."""
