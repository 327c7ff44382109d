"""The values the Store port passes around: its errors, a loaded game, a commit and its outcome,
and the mailbox of one watch."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from service.store.ports.limits import MAX_MS
from service.store.ports.validation import (
    validate_commit,
    validate_events,
    validate_game_id,
    validate_int,
    validate_request_id,
)


class StoreUnavailable(Exception):
    """The store cannot be reached or answered with an error; maps to gRPC UNAVAILABLE."""


class StoreBusy(StoreUnavailable):
    """Every connection this process may open to the store is in use, and none came free within
    the pool's wait: this process is overloaded, while the store itself may be fine. Maps to gRPC
    RESOURCE_EXHAUSTED (a StoreUnavailable, so code that only knows the store failed still works)."""


class StoreFull(StoreUnavailable):
    """The store refused a write because it is out of memory (Redis' ``maxmemory`` reached under a
    policy that cannot evict, such as ``noeviction``): it is up and answers reads, it is full.
    Maps to gRPC RESOURCE_EXHAUSTED ``STORE_FULL`` (a StoreUnavailable, so code that only knows
    the store failed still works)."""


class GameExists(Exception):
    """``create`` was called for a game id that is already taken."""


class BadCursor(ValueError):
    """A cursor of the port's form (``validate_cursor``) that the store did not make and cannot
    read (``read_events``, ``sweep_index``): the caller's input, a client's mistake; maps to gRPC
    INVALID_ARGUMENT. Raised by a back-end, the only one that knows what its cursors mean."""


@dataclass(frozen=True)
class Loaded:
    """A game as read from the store: its version and opaque state."""

    version: int
    state: bytes


@dataclass(frozen=True)
class Commit:
    """One change of a game for ``Store.commit``, checked once, when it is made (ValueError).

    Its log ``entries`` replace the ``state`` if the game is still at ``expected_version``; with
    them go the finished ``hands``, the ``events`` for the outbox and the ``retry`` record of
    ``request_id``. ``finished``: the game is over (it expires after the finished TTL).
    ``due_ms`` (0: none): the game's next time on the schedule, written as ``Coordination.schedule``
    writes it, before the change or in its atomic step, whether or not the change wins (the
    schedule is a hint).
    """

    game_id: str
    expected_version: int
    state: bytes
    entries: Sequence[bytes]
    request_id: str | None = None
    retry: bytes | None = None
    finished: bool = False
    hands: Sequence[bytes] = ()
    events: Sequence[bytes] = ()
    due_ms: int = 0

    def __post_init__(self) -> None:
        validate_game_id(self.game_id)
        validate_int("due_ms", self.due_ms, 0, MAX_MS)
        validate_request_id(self.request_id)
        validate_commit(self.expected_version, self.state, self.entries)
        object.__setattr__(self, "events", validate_events(self.events))
        object.__setattr__(self, "hands", list(self.hands))


@dataclass(frozen=True)
class Committed:
    """Outcome of ``commit``: written, a version conflict, or a request id seen before (its retry
    record); ``due_before``: with a ``due_ms``, the game's time on the schedule before it (as
    ``Coordination.schedule`` returns it); ``due_atomic``: the schedule was written in the
    change's own atomic step (no sweeper can have read the game between the two)."""

    ok: bool
    version: int
    replay: bytes | None = None
    due_before: int | None = None
    due_atomic: bool = False


class Watcher:
    """Mailbox of one watch: keeps only the newest unseen version (slow readers skip ahead)."""

    def __init__(self) -> None:
        """Start empty: nothing notified, nothing taken."""
        self._latest = -1
        self._taken = -1
        self._ended = False
        self._event = asyncio.Event()

    def notify(self, version: int) -> None:
        """Record that ``version`` exists; wake the reader if it is newer than anything seen, or
        if it is 0 after versions (the game was deleted: what comes next counts from 1 again)."""
        if version > self._latest or (version == 0 and self._latest > 0):
            if version == 0:
                self._taken = -1
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
