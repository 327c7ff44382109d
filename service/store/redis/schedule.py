"""The schedule of the Redis store: when each game is due, in ``SHARDS`` sorted sets.

- ``P:due:{n}``  sorted set, ``n`` in 0..SHARDS-1 (``shard_of``): game id -> epoch ms when the
  game is due, or the end of its claim's lease; under the shard's hash tag ``{<n>}``, no TTL
  (``settle`` drops a game that is done)
"""

from __future__ import annotations

from service.store.port import shard_of
from service.store.redis.base import RedisBase
from service.store.redis.connection import unavailable_on_error


class RedisSchedule(RedisBase):
    """Due times of games, in one sorted set per shard, claimed by leases."""

    def due_key(self, shard: int) -> str:
        """Return the key of a schedule shard ``<prefix>:due:{<n>}``."""
        return f"{self._prefix}:due:{{{shard}}}"

    async def schedule(self, game_id: str, at_ms: int) -> None:
        """Make the game due at ``at_ms`` in ``P:due:{<shard>}`` unless it is due earlier (ZADD LT)."""
        key = self.due_key(shard_of(game_id))
        with unavailable_on_error("schedule"):
            await self._client.zadd(key, {game_id: at_ms}, lt=True)

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms``, earliest first; each is due
        again at ``now_ms + lease_ms``, the claim token returned with it."""
        key = self.due_key(shard)
        token = now_ms + lease_ms
        with unavailable_on_error("claim_due"):
            games = await self._run("claim_due", keys=[key], args=[now_ms, token, count])
        return [(game.decode(), token) for game in games]

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim``, make it due at ``next_ms`` or unschedule it (None);
        return whether the claim still held."""
        key = self.due_key(shard_of(game_id))
        with unavailable_on_error("settle"):
            held = await self._run("settle", keys=[key], args=[game_id, claim, "" if next_ms is None else next_ms])
        return bool(held)
