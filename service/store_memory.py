"""MemoryStore: the Store contract in one process (the embedded default without REDIS_URL).

Every method runs without awaiting between its check and its writes, so on one event loop
each call is atomic, exactly like the Redis Lua scripts. TTLs are honoured lazily against an
injectable monotonic clock, with a sweep of expired entries at most once a minute.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field

from service.store import (
    DEFAULT_FINISHED_TTL_S,
    DEFAULT_IDLE_TTL_S,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_REQUEST_TTL_S,
    Committed,
    GameExists,
    Loaded,
    StoreUnavailable,
    Watcher,
    validate_bucket,
    validate_commit,
    validate_entries,
    validate_game_id,
    validate_limits,
    validate_request_id,
)

SWEEP_INTERVAL_S = 60.0


@dataclass
class _Game:
    """One stored game: version, state, log, hand records, retry records and expiry time."""

    version: int
    state: bytes
    log: list[bytes]
    expires_at: float
    hands: list[bytes] = field(default_factory=list)
    retries: OrderedDict[str, tuple[float, bytes]] = field(default_factory=OrderedDict)


class MemoryStore:
    """In-process Store with the same semantics as RedisStore (one event loop only)."""

    def __init__(
        self,
        *,
        idle_ttl_s: float = DEFAULT_IDLE_TTL_S,
        finished_ttl_s: float = DEFAULT_FINISHED_TTL_S,
        request_ttl_s: float = DEFAULT_REQUEST_TTL_S,
        max_requests: int = DEFAULT_MAX_REQUESTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Create an empty store; ``clock`` returns seconds and may be faked in tests."""
        validate_limits(idle_ttl_s, finished_ttl_s, request_ttl_s, max_requests)
        self._idle_ttl_s = idle_ttl_s
        self._finished_ttl_s = finished_ttl_s
        self._request_ttl_s = request_ttl_s
        self._max_requests = max_requests
        self._clock = clock
        self._games: dict[str, _Game] = {}
        self._watchers: dict[str, set[Watcher]] = {}
        self._buckets: dict[str, tuple[float, float, float]] = {}  # name -> (tokens, at, full at)
        self._next_sweep = clock() + SWEEP_INTERVAL_S
        self._closed = False

    async def create(
        self,
        game_id: str,
        state: bytes,
        entries: Sequence[bytes],
        request_id: str | None = None,
        retry: bytes | None = None,
    ) -> None:
        """Store a new game with its first log entries (version = their count); GameExists if taken."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        validate_entries(state, entries)
        self._check_open()
        now = self._now()
        if self._live_game(game_id, now) is not None:
            raise GameExists(game_id)
        game = self._games[game_id] = _Game(len(entries), state, list(entries), now + self._idle_ttl_s)
        if request_id is not None:
            self._remember(game, request_id, retry, now)
        self._publish(game_id, game.version)

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        return None if game is None else Loaded(game.version, game.state)

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        entries: Sequence[bytes],
        request_id: str | None,
        retry: bytes | None,
        finished: bool,
        hands: Sequence[bytes] = (),
    ) -> Committed:
        """Replace the state and append log entries (and hand records) if the version is still expected_version."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        validate_commit(expected_version, state, entries)
        self._check_open()
        now = self._now()
        game = self._live_game(game_id, now)
        current = 0 if game is None else game.version
        if game is not None and request_id is not None:
            replay = self._recall(game, request_id, now)
            if replay is not None:
                return Committed(False, current, replay)
        if game is None or current != expected_version:
            return Committed(False, current, None)
        game.log.extend(entries)
        game.version += len(entries)
        game.state = state
        game.hands.extend(hands)
        game.expires_at = now + (self._finished_ttl_s if finished else self._idle_ttl_s)
        if request_id is not None:
            self._remember(game, request_id, retry, now)
        self._publish(game_id, game.version)
        return Committed(True, game.version, None)

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        self._check_open()
        now = self._now()
        game = self._live_game(game_id, now)
        return None if game is None else self._recall(game, request_id, now)

    async def hands(self, game_id: str, start: int = 0, count: int | None = None) -> list[bytes]:
        """Return the hand records appended by commits from index ``start`` (``count`` of them, or all
        the rest), oldest first ([] for no such game)."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return []
        return game.hands[max(start, 0):None if count is None else max(start, 0) + max(count, 0)]

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``), ascending."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return []
        first = max(version, 0)
        entries = game.log[first:until]
        return list(enumerate(entries, first + 1))

    async def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version (0 if none), then every newer version."""
        validate_game_id(game_id)
        self._check_open()
        watcher = Watcher()
        group = self._watchers.setdefault(game_id, set())
        group.add(watcher)
        try:
            game = self._live_game(game_id, self._now())
            watcher.notify(0 if game is None else game.version)
            while (version := await watcher.next()) is not None:
                yield version
        finally:
            group.discard(watcher)
            if not group and self._watchers.get(game_id) is group:
                del self._watchers[game_id]

    async def ping(self) -> None:
        """Return at once: an in-process store is always reachable until closed."""
        self._check_open()

    async def version(self, game_id: str) -> int:
        """Return the game's current version, 0 when there is no such game."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        return 0 if game is None else game.version

    async def eviction_policy(self) -> str | None:
        """None: an in-process store never evicts."""
        return None

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a bucket refilled at ``rate_per_s`` up to ``burst`` (0.0 when taken,
        else seconds to wait); a bucket that has refilled is forgotten by the next sweep."""
        validate_bucket(bucket, rate_per_s, burst)
        self._check_open()
        now = self._now()
        tokens, at, _ = self._buckets.get(bucket, (float(burst), now, now))
        tokens = min(float(burst), tokens + (now - at) * rate_per_s)
        if tokens < 1.0:
            self._buckets[bucket] = (tokens, now, now + (burst - tokens) / rate_per_s)
            return (1.0 - tokens) / rate_per_s
        tokens -= 1.0
        self._buckets[bucket] = (tokens, now, now + (burst - tokens) / rate_per_s)
        return 0.0

    async def close(self) -> None:
        """Drop every game and end all watches."""
        self._closed = True
        for group in self._watchers.values():
            for watcher in group:
                watcher.end()
        self._games.clear()

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
        return now

    def _live_game(self, game_id: str, now: float) -> _Game | None:
        """Return the game unless it is missing or expired (expired ones are dropped)."""
        game = self._games.get(game_id)
        if game is not None and game.expires_at <= now:
            del self._games[game_id]
            return None
        return game

    def _recall(self, game: _Game, request_id: str, now: float) -> bytes | None:
        """Return the game's retry record for this request id unless missing or expired."""
        kept = game.retries.get(request_id)
        return None if kept is None or now - kept[0] >= self._request_ttl_s else kept[1]

    def _remember(self, game: _Game, request_id: str, retry: bytes | None, now: float) -> None:
        """Keep a retry record, dropping the game's oldest beyond ``max_requests``."""
        game.retries[request_id] = (now, retry or b"")
        while len(game.retries) > self._max_requests:
            game.retries.popitem(last=False)

    def _publish(self, game_id: str, version: int) -> None:
        """Tell every watcher of the game about the new version."""
        group = self._watchers.get(game_id)
        if group is not None:
            for watcher in group:
                watcher.notify(version)
