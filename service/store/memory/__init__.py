"""MemoryStore: the Store contract in one process (the embedded default without REDIS_URL).

Every method runs without awaiting between its check and its writes, so on one event loop
each call is atomic, exactly like the Redis Lua scripts. TTLs are honoured lazily against an
injectable monotonic clock, with a sweep of expired entries at most once a minute; the sweep
also drops the index entries and publish records of games that no longer exist (a game's
outbox goes with the game). An event stream's cursors are ``e<n>``, the entry's number in its
stream (a form of this store's own: nothing outside it reads them); a blocked ``read_events``
waits on an asyncio condition that ``publish`` notifies.

The store (``store``) is put together from one class per port: ``games`` (with the outboxes),
``events``, ``index``, and for the coordination port ``schedule`` and ``ratelimit``, on ``base``
(limits, clock, contents, expiry) and the ``structures`` they keep. Arguments are taken as
given: wrap the store with ``service.store.checked.checked`` (as ``open_store`` does) to have
them checked.
"""

from service.store.memory.base import SWEEP_INTERVAL_S
from service.store.memory.store import MemoryStore

__all__ = ["SWEEP_INTERVAL_S", "MemoryStore"]
