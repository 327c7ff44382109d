"""Choosing a back-end: ``open_store`` gives the Redis store for a Redis URL, else the in-memory one,
either one checked (``service.store.checked``): its arguments are validated once, before it sees them."""

from __future__ import annotations

from typing import Any

from service.store.checked import checked
from service.store.memory import MemoryStore
from service.store.port import Store
from service.store.redis.store import RedisStore


def open_store(redis_url: str | None = None, *, cluster: bool = False, **options: Any) -> Store:
    """Return a checked RedisStore for redis_url (a Redis Cluster when ``cluster``), else a checked MemoryStore."""
    if redis_url:
        return checked(RedisStore(redis_url, cluster=cluster, **options))
    return checked(MemoryStore(**options))
