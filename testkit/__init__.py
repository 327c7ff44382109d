"""Helpers for tests and benchmarks, outside the production package: ``launcher`` starts real
server processes (``ServerProcess``) on free ports; ``bench_server`` is the server with the
benchmark's no-op RPC beside GameService."""
