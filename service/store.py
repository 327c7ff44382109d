"""The game store interface: load a game, compare-and-set it back, its log, retries, watch.

A store keeps, per game: the opaque state bytes and their version; the game's log, one opaque
entry per version (version 1 is the first entry); the list of finished hands' score records
(only ever appended to, and kept out of the state so the state read and written on every move
stays small); the retry records of the game's latest ``max_requests`` request ids (each kept
``request_ttl_s`` at most); and a change feed. Two implementations pass one contract suite
(tests/test_store_contract.py): ``RedisStore`` (service/store_redis.py, shared by many server
processes) and ``MemoryStore`` (service/store_memory.py, one process; the default of
``make run`` without ``REDIS_URL``).

A commit of ``n`` entries moves the version from ``v`` to ``v + n``; ``create`` stores the first
entries, so a game created with ``n`` entries is at version ``n``. Version 0 means "no such game".
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

DEFAULT_IDLE_TTL_S = 7 * 86400
DEFAULT_FINISHED_TTL_S = 86400
DEFAULT_REQUEST_TTL_S = 86400
DEFAULT_MAX_REQUESTS = 64
MAX_ID_LENGTH = 256


class StoreUnavailable(Exception):
    """The store cannot be reached or answered with an error; maps to gRPC UNAVAILABLE."""


class GameExists(Exception):
    """``create`` was called for a game id that is already taken."""


@dataclass(frozen=True)
class Loaded:
    """A game as read from the store: its version and opaque state."""

    version: int
    state: bytes


@dataclass(frozen=True)
class Committed:
    """Outcome of ``commit``: written, a version conflict, or a request id seen before (its retry record)."""

    ok: bool
    version: int
    replay: bytes | None = None


@runtime_checkable
class Store(Protocol):
    """What the servicer needs from a game store (all writes atomic, state opaque)."""

    async def create(
        self,
        game_id: str,
        state: bytes,
        entries: Sequence[bytes],
        request_id: str | None = None,
        retry: bytes | None = None,
    ) -> None:
        """Store a new game with its first log entries (version = their count); GameExists if taken."""
        ...

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        ...

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
        """Replace the state and append log entries (and hand records) if the version is still expected_version.

        A request id already recorded (and not yet expired) wins over everything else: nothing
        is written and its retry record comes back in ``Committed.replay``.
        """
        ...

    async def hands(self, game_id: str, start: int = 0, count: int | None = None) -> list[bytes]:
        """Return the hand records appended by commits from index ``start`` (``count`` of them, or all
        the rest), oldest first ([] for no such game)."""
        ...

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        ...

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``), ascending."""
        ...

    def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version once subscribed, then every newer version."""
        ...

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""
        ...

    async def version(self, game_id: str) -> int:
        """Return the game's current version, 0 when there is no such game."""
        ...

    async def eviction_policy(self) -> str | None:
        """The store's key-eviction policy (Redis ``maxmemory-policy``), None when it has none or hides it."""
        ...

    async def take_token(self, bucket: str, rate_per_s: float, burst: int) -> float:
        """Take one token from a rate-limit bucket that refills ``rate_per_s`` tokens a second up
        to ``burst``; returns 0.0 when taken, else the seconds until a token will be there."""
        ...

    async def close(self) -> None:
        """Release connections and end all watches."""
        ...


def validate_game_id(game_id: str) -> str:
    """Return game_id if usable as a key part (non-empty, short, no braces); else ValueError."""
    if not isinstance(game_id, str) or not game_id:
        raise ValueError("game_id must be a non-empty string")
    if len(game_id) > MAX_ID_LENGTH:
        raise ValueError(f"game_id longer than {MAX_ID_LENGTH} characters")
    if "{" in game_id or "}" in game_id:
        raise ValueError(f"game_id must not contain braces: {game_id!r}")
    return game_id


def validate_request_id(request_id: str | None) -> str | None:
    """Return request_id if None or a non-empty string of sane length; else ValueError."""
    if request_id is None:
        return None
    if not isinstance(request_id, str) or not request_id:
        raise ValueError("request_id must be None or a non-empty string")
    if len(request_id) > MAX_ID_LENGTH:
        raise ValueError(f"request_id longer than {MAX_ID_LENGTH} characters")
    return request_id


def validate_bucket(bucket: str, rate_per_s: float, burst: int) -> None:
    """Reject a rate-limit bucket name or limit that no caller should send."""
    if not bucket or len(bucket) > MAX_ID_LENGTH or "{" in bucket or "}" in bucket:
        raise ValueError(f"bucket must be 1..{MAX_ID_LENGTH} characters without braces")
    if not rate_per_s > 0 or burst < 1:
        raise ValueError("a rate limit needs a positive rate and a burst of at least 1")


def validate_entries(state: bytes, entries: Sequence[bytes]) -> None:
    """Raise ValueError unless the state and log entries of a write are well formed."""
    if not isinstance(state, bytes):
        raise ValueError("state must be bytes")
    if not entries:
        raise ValueError("a write needs at least one log entry (each entry is one version)")
    if not all(isinstance(entry, bytes) for entry in entries):
        raise ValueError("log entries must be bytes")


def validate_commit(expected_version: int, state: bytes, entries: Sequence[bytes]) -> None:
    """Raise ValueError unless the commit arguments are well formed."""
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise ValueError("expected_version must be an int")
    if expected_version < 1:
        raise ValueError("expected_version must be >= 1 (games start at version 1)")
    validate_entries(state, entries)


def validate_limits(idle_ttl_s: float, finished_ttl_s: float, request_ttl_s: float, max_requests: int) -> None:
    """Raise ValueError unless every TTL is positive and max_requests >= 1."""
    for name, value in (("idle_ttl_s", idle_ttl_s), ("finished_ttl_s", finished_ttl_s),
                        ("request_ttl_s", request_ttl_s)):
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if isinstance(max_requests, bool) or not isinstance(max_requests, int) or max_requests < 1:
        raise ValueError(f"max_requests must be an int >= 1, got {max_requests!r}")


class Watcher:
    """Mailbox of one watch: keeps only the newest unseen version (slow readers skip ahead)."""

    def __init__(self) -> None:
        """Start empty: nothing notified, nothing taken."""
        self._latest = -1
        self._taken = -1
        self._ended = False
        self._event = asyncio.Event()

    def notify(self, version: int) -> None:
        """Record that ``version`` exists; wake the reader if it is newer than anything seen."""
        if version > self._latest:
            self._latest = version
            self._event.set()

    def end(self) -> None:
        """Make ``next`` return None (the store is closing)."""
        self._ended = True
        self._event.set()

    async def next(self) -> int | None:
        """Wait for a version newer than the last one returned; None once ended."""
        while self._latest <= self._taken and not self._ended:
            self._event.clear()
            await self._event.wait()
        if self._ended:
            return None
        self._taken = self._latest
        return self._taken


def open_store(redis_url: str | None = None, *, cluster: bool = False, **options: Any) -> Store:
    """Return a RedisStore for redis_url (a Redis Cluster when ``cluster``), else a MemoryStore."""
    if redis_url:
        from service.store_redis import RedisStore

        return RedisStore(redis_url, cluster=cluster, **options)
    from service.store_memory import MemoryStore

    return MemoryStore(**options)
