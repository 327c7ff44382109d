"""The Redis a benchmark runs on: ``REDIS_URL`` when it is set; else the server on
127.0.0.1:6379 when one answers there; else a private redis-server started for the run (as the
tests start theirs), so `make bench` needs no Redis service, only Debian's redis-server. Each run
keeps its keys under a prefix of its own and deletes them after (SCAN, never FLUSH)."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

from testkit.redis_server import DEFAULT_URL, PrivateRedis, delete_keys, redis_answers

__all__ = ["PrivateRedis", "delete_keys", "redis_target", "redis_url"]


@contextlib.contextmanager
def redis_url() -> Iterator[str]:
    """The URL of the Redis to run on (see the module docstring), for the ``with`` block."""
    explicit = os.environ.get("REDIS_URL")
    if explicit:
        if not redis_answers(explicit, timeout_s=1.0):
            raise RuntimeError(f"REDIS_URL={explicit} does not answer PING")
        yield explicit
    elif redis_answers(DEFAULT_URL, timeout_s=1.0):
        yield DEFAULT_URL
    else:
        with PrivateRedis() as private:
            print(f"# no Redis answers on {DEFAULT_URL}: a private redis-server on {private.url}", flush=True)
            yield private.url


@contextlib.contextmanager
def redis_target() -> Iterator[tuple[str, str]]:
    """(Redis URL, a new key prefix) for one benchmark run; the prefix's keys are deleted after."""
    prefix = f"cardgame-bench-{uuid.uuid4().hex[:12]}"
    with redis_url() as url:
        try:
            yield url, prefix
        finally:
            delete_keys(url, prefix)
