"""MemoryStore: the Store contract in one process (the embedded default without REDIS_URL).

Every method runs without awaiting between its check and its writes, so on one event loop
each call is atomic, exactly like the Redis Lua scripts. TTLs are honoured lazily against an
injectable monotonic clock, with a sweep of expired entries at most once a minute; the sweep
also drops the index entries and publish records of games that no longer exist (a game's
outbox goes with the game). Event stream ids are made from the wall clock, ``<ms>-<n>``,
always increasing; a blocked ``read_events`` waits on an asyncio condition that ``publish``
notifies.

The store (``store``) is put together from one class per concern: ``games``, ``events``,
``schedule``, ``index``, ``ratelimit``, on ``base`` (limits, clock, contents, expiry) and the
``structures`` they keep. Arguments are taken as given: wrap the store with
``service.store.checked.checked`` (as ``open_store`` does) to have them checked.
"""

from service.store.memory.base import SWEEP_INTERVAL_S
from service.store.memory.store import MemoryStore

__all__ = ["SWEEP_INTERVAL_S", "MemoryStore"]
