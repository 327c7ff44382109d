"""The schedule of the in-process store: one dict per shard, game id -> due ms or lease end."""

from __future__ import annotations

import heapq

from service.store.memory.base import MemoryBase
from service.store.port import shard_of


class MemorySchedule(MemoryBase):
    """Due times of games, claimed by leases."""

    async def schedule(self, game_id: str, at_ms: int) -> None:
        """Make the game due at ``at_ms`` unless it is already due earlier."""
        shard = self._due[shard_of(game_id)]
        self._check_open()
        if shard.get(game_id, at_ms) >= at_ms:
            shard[game_id] = at_ms

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms``, earliest first (ties: by id);
        each is due again at ``now_ms + lease_ms``, the claim token returned with it."""
        token = now_ms + lease_ms
        self._check_open()
        due = self._due[shard]
        claimed = heapq.nsmallest(count, ((at, game_id) for game_id, at in due.items() if at <= now_ms))
        for _, game_id in claimed:
            due[game_id] = token
        return [(game_id, token) for _, game_id in claimed]

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim``, make it due at ``next_ms`` or unschedule it (None);
        return whether the claim still held."""
        due = self._due[shard_of(game_id)]
        self._check_open()
        if due.get(game_id) != claim:
            return False
        if next_ms is None:
            del due[game_id]
        else:
            due[game_id] = next_ms
        return True
