"""The game store: the games themselves. Create one, load it, compare-and-set it back; its log,
finished hands, retry records, outbox; watch it; delete it.

A store keeps, per game: the opaque state bytes and their version; the game's log, one opaque
entry per version (version 1 is the first entry); the list of finished hands' score records
(only ever appended to, and kept out of the state so the state read and written on every move
stays small); the retry records of the game's latest ``max_requests`` request ids (each kept
``request_ttl_s`` at most); its outbox; and a change feed (``watch``).

A create or commit may carry events (``b"<seq> <opaque>"``, the seq a per-game decimal number
chosen by the caller, ascending); they join the game's outbox (at most ``MAX_OUTBOX``, the oldest
dropped) in the same atomic step as the write, and leave it when ``publish_outbox``
(``service.store.ports.events``) has copied them to their owner's event stream.

A commit of ``n`` entries moves the version from ``v`` to ``v + n``; ``create`` stores the first
entries, so a game created with ``n`` entries is at version ``n``. Version 0 means "no such game".
Everything of a game expires together: after the idle TTL from its creation or latest commit, or
the finished TTL from a commit that finished it. ``delete`` removes a game's own data; its index
entries, publish record and schedule entry stay for their own calls.

Atomicity: ``create``, ``commit`` and ``delete`` are each one atomic step, over every part of the
game they touch (state, log, hands, retry records, outbox) and the notification of its watchers.
Reads see a state some write left whole.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Protocol, runtime_checkable

from service.store.ports.values import Commit, Committed, Loaded


@runtime_checkable
class GameStore(Protocol):
    """The games: create, read, compare-and-set, watch and delete them (all writes atomic, state opaque)."""

    async def create(
        self,
        game_id: str,
        state: bytes,
        entries: Sequence[bytes],
        request_id: str | None = None,
        retry: bytes | None = None,
        *,
        events: Sequence[bytes] = (),
    ) -> None:
        """Store a new game with its first log entries (version = their count) and its first outbox
        events; GameExists if taken."""
        ...

    async def load(self, game_id: str) -> Loaded | None:
        """Return the game's version and state, or None when there is no such game."""
        ...

    async def loads(self, game_ids: Sequence[str]) -> list[Loaded | None]:
        """Return each game as ``load`` has it (version and state), None for a missing one, in order."""
        ...

    async def commit(self, change: Commit) -> Committed:
        """Replace the state and append log entries (and hand records, and outbox events) if the version
        is still ``change.expected_version``.

        A request id already recorded (and not yet expired) wins over everything else: nothing
        is written and its retry record comes back in ``Committed.replay``. Events join the
        outbox only with a successful commit; the outbox keeps the latest ``MAX_OUTBOX``.

        With ``change.due_ms`` the game is also scheduled (``Coordination.schedule``), before the
        write or in its atomic step, so no crash leaves a committed game off the schedule;
        ``Committed.due_before`` is its time before, and ``Committed.due_atomic`` says whether the
        schedule and the write were one atomic step (one Redis, one process): if not, a sweeper's
        claim may have read the game between them, and the caller schedules it again.
        """
        ...

    async def hands(self, game_id: str, start: int = 0, limit: int | None = None) -> list[bytes]:
        """Return the hand records appended by commits from index ``start`` (at most ``limit`` of
        them, or all the rest), oldest first ([] for no such game)."""
        ...

    async def get_retry(self, game_id: str, request_id: str) -> bytes | None:
        """Return the retry record kept for this request id, or None."""
        ...

    async def log_after(self, game_id: str, version: int, until: int | None = None) -> list[tuple[int, bytes]]:
        """Return (version, entry) pairs with versions above ``version`` (and at most ``until``),
        ascending. A version below 0 counts as 0."""
        ...

    def watch(self, game_id: str) -> AsyncGenerator[int, None]:
        """Yield the game's current version once subscribed (0 if none), then every newer version,
        and 0 when the game is deleted (a game made again under the id then counts from 1). A slow
        reader may skip versions, never the newest: a watcher that re-reads ``log_after`` at each
        yield misses nothing."""
        ...

    async def delete(self, game_id: str) -> bool:
        """Remove the game (state, log, hands, retry records, outbox); True if it existed, and then
        its watchers are told version 0.

        Its index entries, publish record and schedule entry stay for their own calls."""
        ...

    async def outbox(self, game_id: str) -> list[bytes]:
        """Return the game's outbox events, oldest first ([] for no such game)."""
        ...
