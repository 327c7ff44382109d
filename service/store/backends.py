"""Choosing a back-end: ``open_store`` gives the Redis store for a Redis URL, else the in-memory one."""

from __future__ import annotations

from typing import Any

from service.store.memory import MemoryStore
from service.store.port import Store
from service.store.redis.store import RedisStore


def open_store(redis_url: str | None = None, *, cluster: bool = False, **options: Any) -> Store:
    """Return a RedisStore for redis_url (a Redis Cluster when ``cluster``), else a MemoryStore."""
    if redis_url:
        return RedisStore(redis_url, cluster=cluster, **options)
    return MemoryStore(**options)
