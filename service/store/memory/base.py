"""What every part of the in-process store shares: its limits, clock, everything it keeps, and
the lazy expiry of games (with the sweep of expired entries)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from service.store.memory.structures import Game, OwnerIndex, SortedSet, Stream, unindex
from service.store.port import (
    DEFAULT_EVENT_SEQ_TTL_S,
    DEFAULT_FINISHED_TTL_S,
    DEFAULT_IDLE_TTL_S,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_REQUEST_TTL_S,
    SHARDS,
    StoreUnavailable,
    Watcher,
    validate_limits,
)

SWEEP_INTERVAL_S = 60.0


class MemoryBase:
    """The limits, clock and contents of a MemoryStore; the check that it is open; expiry."""

    def __init__(
        self,
        *,
        idle_ttl_s: float = DEFAULT_IDLE_TTL_S,
        finished_ttl_s: float = DEFAULT_FINISHED_TTL_S,
        request_ttl_s: float = DEFAULT_REQUEST_TTL_S,
        max_requests: int = DEFAULT_MAX_REQUESTS,
        clock: Callable[[], float] = time.monotonic,
        event_seq_ttl_s: float = DEFAULT_EVENT_SEQ_TTL_S,
    ) -> None:
        """Create an empty store; ``clock`` returns seconds and may be faked in tests;
        ``event_seq_ttl_s`` is how long an owner's publish record outlives its last publish."""
        validate_limits(idle_ttl_s, finished_ttl_s, request_ttl_s, max_requests)
        if not event_seq_ttl_s > 0:
            raise ValueError(f"event_seq_ttl_s must be positive, got {event_seq_ttl_s!r}")
        self._event_seq_ttl_s = event_seq_ttl_s
        self._idle_ttl_s = idle_ttl_s
        self._finished_ttl_s = finished_ttl_s
        self._request_ttl_s = request_ttl_s
        self._max_requests = max_requests
        self._clock = clock
        self._games: dict[str, Game] = {}
        self._watchers: dict[str, set[Watcher]] = {}
        self._buckets: dict[str, tuple[float, float, float]] = {}  # name -> (tokens, at, full at)
        self._streams: dict[str, Stream] = {}
        self._published = asyncio.Condition()
        self._due: list[SortedSet] = [SortedSet() for _ in range(SHARDS)]   # game id -> due ms or lease end
        self._claims: dict[str, int] = {}   # game id -> its latest claim's token
        self._asked: dict[str, int] = {}    # game id -> the earliest time scheduled while claimed
        self._members: dict[str, int] = {}       # sweeper -> end of its membership (callers' ms)
        self._leases: dict[int, str] = {}        # shard -> the sweeper holding it
        self._present: dict[str, int] = {}       # sweeper -> its open watches
        self._schedule_watches: set[Any] = set()  # the open MemoryScheduleWatch objects
        self._index: dict[str, OwnerIndex] = {}
        self._owners: set[str] = set()
        self._next_sweep = clock() + SWEEP_INTERVAL_S
        self._closed = False

    def _check_open(self) -> None:
        """Raise StoreUnavailable once the store is closed."""
        if self._closed:
            raise StoreUnavailable("memory store is closed")

    def _now(self) -> float:
        """Return the clock, sweeping expired entries when a sweep is due."""
        now = self._clock()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_INTERVAL_S
            self._games = {k: g for k, g in self._games.items() if g.expires_at > now}
            self._buckets = {k: b for k, b in self._buckets.items() if b[2] > now}
            for owner, index in list(self._index.items()):
                unindex(self._index, owner, {game_id: () for game_id in index.all.scores if game_id not in self._games})
            for stream in self._streams.values():
                if stream.seq_expires_at <= now:
                    stream.seq.clear()
                else:
                    stream.seq = {k: seq for k, seq in stream.seq.items() if k in self._games}
        return now

    def _live_game(self, game_id: str, now: float) -> Game | None:
        """Return the game unless it is missing or expired (expired ones are dropped)."""
        game = self._games.get(game_id)
        if game is not None and game.expires_at <= now:
            del self._games[game_id]
            return None
        return game
