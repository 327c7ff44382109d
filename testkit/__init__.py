"""Helpers for tests and benchmarks, outside the production package: ``launcher`` starts real
server processes (``ServerProcess``) on free ports; ``bench_server`` is the server with the
benchmark's no-op RPC beside GameService; ``redis_server`` starts private redis-servers (and
clusters); ``processes`` stops a child process within a bound."""
