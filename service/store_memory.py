"""MemoryStore: the Store contract in one process (the embedded default without REDIS_URL).

Every method runs without awaiting between its check and its writes, so on one event loop
each call is atomic, exactly like the Redis Lua scripts. TTLs are honoured lazily against an
injectable monotonic clock, with a sweep of expired entries at most once a minute.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from collections.abc import Sequence
from dataclasses import dataclass, field

from service.store import (
    DEFAULT_FINISHED_TTL_S,
    DEFAULT_IDLE_TTL_S,
    DEFAULT_MAX_EVENTS,
    DEFAULT_REQUEST_TTL_S,
    Committed,
    GameExists,
    Loaded,
    StoreUnavailable,
    Watcher,
    validate_commit,
    validate_game_id,
    validate_request_id,
    validate_ttls,
)

SWEEP_INTERVAL_S = 60.0


@dataclass
class _Game:
    """One stored game: version, state, retained events, hand records and expiry time."""

    version: int
    state: bytes
    events: deque[tuple[int, bytes]]
    expires_at: float
    hands: list[bytes] = field(default_factory=list)


@dataclass
class _Request:
    """One idempotency record: the response and its expiry time."""

    response: bytes
    expires_at: float


class MemoryStore:
    """In-process Store with the same semantics as RedisStore (one event loop only)."""

    def __init__(
        self,
        *,
        idle_ttl_s: float = DEFAULT_IDLE_TTL_S,
        finished_ttl_s: float = DEFAULT_FINISHED_TTL_S,
        request_ttl_s: float = DEFAULT_REQUEST_TTL_S,
        max_events: int = DEFAULT_MAX_EVENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Create an empty store; ``clock`` returns seconds and may be faked in tests."""
        validate_ttls(idle_ttl_s, finished_ttl_s, request_ttl_s, max_events)
        self._idle_ttl_s = idle_ttl_s
        self._finished_ttl_s = finished_ttl_s
        self._request_ttl_s = request_ttl_s
        self._max_events = max_events
        self._clock = clock
        self._games: dict[str, _Game] = {}
        self._requests: dict[tuple[str, str], _Request] = {}
        self._watchers: dict[str, set[Watcher]] = {}
        self._next_sweep = clock() + SWEEP_INTERVAL_S
        self._closed = False

    async def create(
        self,
        game_id: str,
        state: bytes,
        event: bytes,
        request_id: str | None = None,
        response: bytes | None = None,
    ) -> None:
        """Store a new game at version 1 with its first event; raise GameExists if taken."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        if not isinstance(state, bytes) or not isinstance(event, bytes):
            raise ValueError("state and event must be bytes")
        self._check_open()
        now = self._now()
        if self._live_game(game_id, now) is not None:
            raise GameExists(game_id)
        expires_at = now + self._idle_ttl_s
        events: deque[tuple[int, bytes]] = deque([(1, event)], maxlen=self._max_events)
        self._games[game_id] = _Game(1, state, events, expires_at)
        if request_id is not None:
            self._record(game_id, request_id, response, now, expires_at)
        self._publish(game_id, 1)

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
        events: list[bytes],
        request_id: str | None,
        response: bytes | None,
        finished: bool,
        hands: Sequence[bytes] = (),
    ) -> Committed:
        """Replace the state and append events (and hand records) if the version is still expected_version."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        validate_commit(expected_version, state, events)
        self._check_open()
        now = self._now()
        game = self._live_game(game_id, now)
        current = 0 if game is None else game.version
        if request_id is not None:
            replay = self._live_request(game_id, request_id, now)
            if replay is not None:
                return Committed(False, current, replay.response)
        if game is None or current != expected_version:
            return Committed(False, current, None)
        version = current
        for event in events:
            version += 1
            game.events.append((version, event))
        game.version = version
        game.state = state
        game.hands.extend(hands)
        game.expires_at = now + (self._finished_ttl_s if finished else self._idle_ttl_s)
        if request_id is not None:
            self._record(game_id, request_id, response, now, game.expires_at)
        self._publish(game_id, version)
        return Committed(True, version, None)

    async def get_response(self, game_id: str, request_id: str) -> bytes | None:
        """Return the response recorded for this request id, or None."""
        validate_game_id(game_id)
        validate_request_id(request_id)
        self._check_open()
        record = self._live_request(game_id, request_id, self._now())
        return None if record is None else record.response

    async def hands(self, game_id: str) -> list[bytes]:
        """Return every hand record appended by commits, oldest first ([] for no such game)."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        return [] if game is None else list(game.hands)

    async def events_after(self, game_id: str, version: int) -> list[tuple[int, bytes]]:
        """Return retained (version, event) pairs with versions above ``version``, ascending."""
        validate_game_id(game_id)
        self._check_open()
        game = self._live_game(game_id, self._now())
        if game is None:
            return []
        return [(v, event) for v, event in game.events if v > version]

    async def watch(self, game_id: str) -> AsyncIterator[int]:
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

    async def close(self) -> None:
        """Drop every game and end all watches."""
        self._closed = True
        for group in self._watchers.values():
            for watcher in group:
                watcher.end()
        self._games.clear()
        self._requests.clear()

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
            self._requests = {k: r for k, r in self._requests.items() if r.expires_at > now}
        return now

    def _live_game(self, game_id: str, now: float) -> _Game | None:
        """Return the game unless it is missing or expired (expired ones are dropped)."""
        game = self._games.get(game_id)
        if game is not None and game.expires_at <= now:
            del self._games[game_id]
            return None
        return game

    def _live_request(self, game_id: str, request_id: str, now: float) -> _Request | None:
        """Return the request record unless it is missing or expired."""
        key = (game_id, request_id)
        record = self._requests.get(key)
        if record is not None and record.expires_at <= now:
            del self._requests[key]
            return None
        return record

    def _record(self, game_id: str, request_id: str, response: bytes | None, now: float,
                game_expires_at: float) -> None:
        """Store a request record that lives request_ttl_s but never outlives the game."""
        expires_at = min(now + self._request_ttl_s, game_expires_at)
        self._requests[(game_id, request_id)] = _Request(response or b"", expires_at)

    def _publish(self, game_id: str, version: int) -> None:
        """Tell every watcher of the game about the new version."""
        group = self._watchers.get(game_id)
        if group is not None:
            for watcher in group:
                watcher.notify(version)
