"""Every benchmark module imports, and each one `make bench` runs has its entry point: a helper
renamed in one module cannot break `make bench` unseen (no test runs the benchmarks whole)."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

import pytest

import bench

# locustfile needs gevent's monkey-patching, which must not happen inside the test process
MODULES = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name not in {"__main__", "locustfile"})


@pytest.mark.parametrize("name", MODULES)
def test_the_benchmark_module_imports(name):
    importlib.import_module(f"bench.{name}")


def test_make_bench_runs_modules_with_entry_points():
    main = importlib.util.find_spec("bench.__main__").origin or ""
    text = open(main).read()
    for name in ("engine_hands", "views", "service_moves", "redis_bytes", "lifecycle", "watch_fanout", "idle"):
        assert f"{name}.main()" in text
        assert callable(importlib.import_module(f"bench.{name}").main)


def test_the_benchmark_servers_flags_are_accepted():
    from bench import idle, watch_fanout
    from service.ops.config import parse

    for flags in (idle.STREAM_FLAGS, watch_fanout.server_flags()):
        parse(list(flags))   # argparse exits (SystemExit) on flags the server refuses


def test_a_benchmark_without_a_redis_service_runs_on_a_private_one(monkeypatch):
    """No REDIS_URL and nothing on the default address: a private redis-server serves the run,
    and the run's keys go with it; an explicit REDIS_URL that does not answer is refused."""
    import redis

    from bench import redis_target
    from testkit.launcher import closed_port

    monkeypatch.delenv("REDIS_URL", raising=False)
    with closed_port() as port:   # where no Redis answers, for the whole test
        monkeypatch.setattr(redis_target, "DEFAULT_URL", f"redis://127.0.0.1:{port}/0")
        with redis_target.redis_target() as (url, prefix):
            assert url != redis_target.DEFAULT_URL
            client = redis.Redis.from_url(url)
            client.set(f"{prefix}:k", b"v")
            assert client.get(f"{prefix}:k") == b"v"
            client.close()
        assert not redis_target.redis_answers(url)   # the private server stopped with the run
        monkeypatch.setenv("REDIS_URL", redis_target.DEFAULT_URL)
        with pytest.raises(RuntimeError, match="does not answer PING"), redis_target.redis_target():
            pass
