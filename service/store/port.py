"""The game store interface: load a game, compare-and-set it back, its log, retries, watch, and
around the games, for their lifecycle, their events, schedule, index and rate limits.

The port is split by concern in ``service.store.ports``: ``GameStore`` (the games: state, log,
hands, retry records, change feed; ``ports/games.py``), ``EventStore`` (outboxes and the owners'
event streams), ``ScheduleStore`` (when games are due, and which sweeper attends to which
shard), ``IndexStore`` (each owner's games by creation time and term) and ``RateLimitStore``
(token buckets); each module says what its part keeps. ``Store``, here, is all of them together
with ``ping``, ``eviction_policy`` and ``close``. Everything of the port, its limits, values and
argument checks included, is importable from here.

Two implementations pass one contract suite (tests/test_store_contract.py): ``RedisStore``
(service/store/redis/, shared by many server processes) and ``MemoryStore``
(service/store/memory/, one process; the default of ``make run`` without ``REDIS_URL``).
They take their arguments as given: ``checked`` (service/store/checked.py) wraps either one and
checks every argument once, raising ValueError before the back-end sees a bad one; ``open_store``
returns a checked store.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from service.store.ports.events import EventStore
from service.store.ports.games import GameStore
from service.store.ports.index import IndexStore
from service.store.ports.limits import (
    DEFAULT_EVENT_SEQ_TTL_S,
    DEFAULT_FINISHED_TTL_S,
    DEFAULT_IDLE_TTL_S,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_REQUEST_TTL_S,
    INDEX_SCAN_MIN,
    MAX_BATCH,
    MAX_COUNT,
    MAX_ID_LENGTH,
    MAX_MS,
    MAX_OUTBOX,
    MAX_OWNER_LENGTH,
    MAX_SEQ,
    MAX_TERM_LENGTH,
    MAX_TERMS,
    SHARDS,
)
from service.store.ports.ratelimit import RateLimitStore
from service.store.ports.schedule import ScheduleStore, ScheduleWatch, ShardLeases, Wakes
from service.store.ports.validation import (
    event_seq,
    index_scan_bound,
    parse_stream_id,
    shard_of,
    validate_bucket,
    validate_commit,
    validate_cursor,
    validate_entries,
    validate_events,
    validate_game_id,
    validate_game_ids,
    validate_int,
    validate_limits,
    validate_owner,
    validate_request_id,
    validate_terms,
)
from service.store.ports.values import (
    Commit,
    Committed,
    GameExists,
    Loaded,
    StoreBusy,
    StoreFull,
    StoreUnavailable,
    Watcher,
)

__all__ = [
    "DEFAULT_EVENT_SEQ_TTL_S", "DEFAULT_FINISHED_TTL_S", "DEFAULT_IDLE_TTL_S", "DEFAULT_MAX_REQUESTS",
    "DEFAULT_REQUEST_TTL_S", "INDEX_SCAN_MIN", "MAX_BATCH", "MAX_COUNT", "MAX_ID_LENGTH", "MAX_MS", "MAX_OUTBOX",
    "MAX_OWNER_LENGTH", "MAX_SEQ", "MAX_TERMS", "MAX_TERM_LENGTH", "SHARDS",
    "Commit", "Committed", "EventStore", "GameExists", "GameStore", "IndexStore", "Loaded", "RateLimitStore",
    "ScheduleStore", "ScheduleWatch", "ShardLeases", "Store", "StoreBusy", "StoreFull", "StoreUnavailable", "Wakes",
    "Watcher",
    "event_seq", "index_scan_bound", "parse_stream_id", "shard_of", "validate_bucket", "validate_commit",
    "validate_cursor", "validate_entries", "validate_events", "validate_game_id", "validate_game_ids",
    "validate_int", "validate_limits", "validate_owner", "validate_request_id", "validate_terms",
]


@runtime_checkable
class Store(GameStore, EventStore, ScheduleStore, IndexStore, RateLimitStore, Protocol):
    """What the servicer needs from a game store (all writes atomic, state opaque): every concern
    of the port, and the store's own health and end."""

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""
        ...

    async def eviction_policy(self) -> str | None:
        """The store's key-eviction policy (Redis ``maxmemory-policy``), None when it has none or hides it."""
        ...

    async def close(self) -> None:
        """Release connections and end all watches."""
        ...
