"""The store's ports: the games, the owners' event streams, the owner index, and what the server
processes coordinate through; ``Store`` is all of them with the store's health and end.

The ports, in ``service.store.ports`` (each module says what its part keeps and which of its
writes are atomic):

- ``GameStore`` (``ports/games.py``): the games. create, load, loads, commit, hands, get_retry,
  log_after, watch, delete, and the outbox's read (``outbox``).
- ``EventStreams`` (``ports/events.py``): each owner's event stream. publish, publish_outbox (a
  game's outbox to its owner's stream), read_events, stream_end, forget; its cursors are opaque
  strings only the store reads.
- ``GameIndex`` (``ports/index.py``): each owner's games by creation time and term.
- ``Coordination`` (``ports/coordination.py``): the schedule (schedule, claim_due, settle,
  next_due), the sweepers' leases and presence (lease_shards, sweepers_present, release_shards),
  their wake-ups (sweep_watch) and rate limits (take_token).

``Store`` adds ``ping``, ``configuration_warnings`` and ``close``. Everything of the port, its
limits, values and argument checks included, is importable from here.

Two implementations pass one contract suite (tests/store/test_store_contract.py): ``RedisStore``
(service/store/redis/, shared by many server processes) and ``MemoryStore``
(service/store/memory/, one process; the default of ``make run`` without ``REDIS_URL``).
They take their arguments as given: ``checked`` (service/store/checked.py) wraps either one and
checks every argument once, by its name, raising ValueError before the back-end sees a bad one;
``open_store`` returns a checked store. docs/architecture.md says how to write a third.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from service.store.ports.coordination import Coordination, ScheduleWatch, ShardLeases, Wakes
from service.store.ports.events import EventStreams
from service.store.ports.games import GameStore
from service.store.ports.index import GameIndex
from service.store.ports.limits import (
    DEFAULT_EVENT_SEQ_TTL_S,
    DEFAULT_FINISHED_TTL_S,
    DEFAULT_IDLE_TTL_S,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_REQUEST_TTL_S,
    INDEX_SCAN_MIN,
    MAX_BATCH,
    MAX_COUNT,
    MAX_CURSOR_LENGTH,
    MAX_ID_LENGTH,
    MAX_MS,
    MAX_OUTBOX,
    MAX_OWNER_LENGTH,
    MAX_SEQ,
    MAX_TERM_LENGTH,
    MAX_TERMS,
    SHARDS,
)
from service.store.ports.validation import (
    event_seq,
    index_scan_bound,
    shard_of,
    validate_before,
    validate_bucket,
    validate_bytes,
    validate_commit,
    validate_cursor,
    validate_entries,
    validate_events,
    validate_game_id,
    validate_game_ids,
    validate_int,
    validate_limits,
    validate_owner,
    validate_rate,
    validate_request_id,
    validate_sweeper,
    validate_sweepers,
    validate_terms,
    validate_terms_of,
)
from service.store.ports.values import (
    BadCursor,
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
    "DEFAULT_REQUEST_TTL_S", "INDEX_SCAN_MIN", "MAX_BATCH", "MAX_COUNT", "MAX_CURSOR_LENGTH", "MAX_ID_LENGTH",
    "MAX_MS", "MAX_OUTBOX", "MAX_OWNER_LENGTH", "MAX_SEQ", "MAX_TERMS", "MAX_TERM_LENGTH", "SHARDS",
    "BadCursor", "Commit", "Committed", "Coordination", "EventStreams", "GameExists", "GameIndex", "GameStore",
    "Loaded", "ScheduleWatch", "ShardLeases", "Store", "StoreBusy", "StoreFull", "StoreUnavailable", "Wakes",
    "Watcher",
    "event_seq", "index_scan_bound", "shard_of", "validate_before", "validate_bucket", "validate_bytes",
    "validate_commit", "validate_cursor", "validate_entries", "validate_events", "validate_game_id",
    "validate_game_ids", "validate_int", "validate_limits", "validate_owner", "validate_rate",
    "validate_request_id", "validate_sweeper", "validate_sweepers", "validate_terms", "validate_terms_of",
]


@runtime_checkable
class Store(GameStore, EventStreams, GameIndex, Coordination, Protocol):
    """What the service needs from a store (all writes atomic as each port says, state opaque):
    every port, and the store's own health and end."""

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""
        ...

    async def configuration_warnings(self) -> list[str]:
        """Return what an operator must hear about the store's configuration at start, in plain
        words with the remedy (e.g. a Redis that evicts keys under memory pressure, deleting games
        in play); [] when nothing is wrong or the store cannot tell."""
        ...

    async def close(self) -> None:
        """Release connections and end all watches."""
        ...
