"""The schedule of the Store port: when each game is due next (a bot's turn, a timeout), and which
sweeper attends to which part of it.

``SHARDS`` sorted sets of game ids scored by epoch milliseconds (the caller's clock), a game in
shard ``shard_of(game_id)``: ``schedule`` only ever moves a game's time earlier, ``claim_due``
leases due games (their score becomes the lease's end, which is the claim token) and ``settle``
reschedules or drops a game only if its score is still that token. ``next_due`` reads a shard's
earliest time. A write that makes a shard's earliest time earlier (``schedule``, ``settle``)
wakes the sweeper following that shard.

The shards are leased to sweepers (one per server process): ``lease_shards`` keeps a sweeper a
member for a while, drops members that stopped renewing (or, where the store can tell, whose
process is gone: its ``sweep_watch`` is no longer open), frees their shards, and gives the caller
its fair share (``ceil(SHARDS / members)``) from the free shards, then from members holding more
than that. So each shard has one sweeper at a time, and a dead sweeper's shards pass to the others
at their next ``lease_shards``. ``release_shards`` gives a sweeper's shards up at once.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol, runtime_checkable


@runtime_checkable
class ScheduleWatch(Protocol):
    """A sweeper's presence (while open) and its wake-ups from the shards it follows."""

    async def follow(self, shards: Collection[int]) -> None:
        """Be woken by the schedule of exactly these shards from now on (subscribed on return)."""
        ...

    async def wait(self, timeout_s: float) -> set[int]:
        """Wait up to ``timeout_s`` for a wake-up; return the followed shards woken since the last
        call (empty on timeout). A lost and re-made connection wakes every followed shard."""
        ...

    async def close(self) -> None:
        """End the presence and every wake-up."""
        ...


@runtime_checkable
class ScheduleStore(Protocol):
    """Due times of games, claimed by leases; the shards leased to sweepers."""

    async def schedule(self, game_id: str, at_ms: int) -> None:
        """Make the game due at ``at_ms`` unless it is already due earlier (a score only goes down);
        wake the shard's sweeper when that is the shard's earliest time now."""
        ...

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms`` (earliest first): each becomes
        due again at ``now_ms + lease_ms``, which is returned with it as the claim token."""
        ...

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim`` (nobody scheduled it earlier since), make it due at
        ``next_ms``, or unschedule it when None; return whether the claim still held. Wakes the
        shard's sweeper when ``next_ms`` is the shard's earliest time now."""
        ...

    async def next_due(self, shard: int) -> int | None:
        """Return the shard's earliest time (a game's due time or a claim's end), None when empty."""
        ...

    async def lease_shards(self, sweeper: str, ttl_ms: int) -> list[int]:
        """Keep ``sweeper`` a member for ``ttl_ms`` more (the store's clock), drop the members
        gone, and return the shards the sweeper holds now, ascending (see the module)."""
        ...

    async def release_shards(self, sweeper: str) -> None:
        """End the sweeper's membership and free its shards."""
        ...

    async def sweep_watch(self, sweeper: str) -> ScheduleWatch:
        """Open the sweeper's watch: its presence for ``lease_shards`` and its wake-ups."""
        ...
