"""The games of the Store port: load a game, compare-and-set it back, its log, hands, retries, watch.

A store keeps, per game: the opaque state bytes and their version; the game's log, one opaque
entry per version (version 1 is the first entry); the list of finished hands' score records
(only ever appended to, and kept out of the state so the state read and written on every move
stays small); the retry records of the game's latest ``max_requests`` request ids (each kept
``request_ttl_s`` at most); its outbox (see ``service.store.ports.events``); and a change feed.

A commit of ``n`` entries moves the version from ``v`` to ``v + n``; ``create`` stores the first
entries, so a game created with ``n`` entries is at version ``n``. Version 0 means "no such game".
``delete`` removes a game's own keys; its index entries, publish record and schedule entry stay
for their own calls.
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
        """Yield the game's current version once subscribed (0 if none), then every newer version,
        and 0 when the game is deleted (a game made again under the id then counts from 1)."""
        ...

    async def version(self, game_id: str) -> int:
        """Return the game's current version, 0 when there is no such game."""
        ...

    async def delete(self, game_id: str) -> bool:
        """Remove the game (state, log, hands, retry records, outbox); True if it existed, and then
        its watchers are told version 0.

        Its index entries, publish record and schedule entry stay for their own calls."""
        ...
