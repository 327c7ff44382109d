"""The schedule of the Store port: when each game is due next (a bot's turn, a timeout).

``SHARDS`` sorted sets of game ids scored by epoch milliseconds (the caller's clock), a game in
shard ``shard_of(game_id)``: ``schedule`` only ever moves a game's time earlier, ``claim_due``
leases due games (their score becomes the lease's end, which is the claim token) and ``settle``
reschedules or drops a game only if its score is still that token.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class ScheduleStore(Protocol):
    """Due times of games, claimed by leases."""

    async def schedule(self, game_id: str, at_ms: int) -> None:
        """Make the game due at ``at_ms`` unless it is already due earlier (a score only goes down)."""
        ...

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms`` (earliest first): each becomes
        due again at ``now_ms + lease_ms``, which is returned with it as the claim token."""
        ...

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim`` (nobody scheduled it earlier since), make it due at
        ``next_ms``, or unschedule it when None; return whether the claim still held."""
        ...
