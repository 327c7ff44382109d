"""MemoryStore: the Store contract in one process, put together from one class per port (the
coordination port in two: the schedule and the rate limits)."""

from __future__ import annotations

import dataclasses

from service.store.memory.events import MemoryEvents
from service.store.memory.games import MemoryGames
from service.store.memory.index import MemoryIndex
from service.store.memory.ratelimit import MemoryRateLimit
from service.store.memory.schedule import MemorySchedule
from service.store.memory.structures import SortedSet
from service.store.outbox import publish_in_steps
from service.store.port import SHARDS, Commit, Committed


class MemoryStore(MemoryGames, MemoryEvents, MemoryIndex, MemorySchedule, MemoryRateLimit):
    """In-process Store with the same semantics as RedisStore (one event loop only)."""

    async def commit(self, change: Commit) -> Committed:
        """The game's commit, scheduled first at ``change.due_ms`` when it has one; neither step
        waits, so nothing else of the event loop runs between them (``due_atomic``)."""
        if not change.due_ms:
            return await MemoryGames.commit(self, change)
        before = await self.schedule(change.game_id, change.due_ms)
        return dataclasses.replace(await MemoryGames.commit(self, change), due_before=before, due_atomic=True)

    async def publish_outbox(self, owner: str, game_id: str, max_len: int) -> int:
        """Publish the game's outbox to the owner's stream and trim it (steps that do not wait, so
        one atomic step in the event loop)."""
        return await publish_in_steps(self, owner, game_id, max_len)

    async def ping(self) -> None:
        """Return at once: an in-process store is always reachable until closed."""
        self._check_open()

    async def configuration_warnings(self) -> list[str]:
        """Nothing: an in-process store has no configuration to get wrong (it never evicts a game)."""
        self._check_open()
        return []

    async def close(self) -> None:
        """Drop every game, end all watches and wake every blocked read_events (which then fails)."""
        self._closed = True
        for group in self._watchers.values():
            for watcher in group:
                watcher.end()
        self._games.clear()
        self._streams.clear()
        self._index.clear()
        self._due = [SortedSet() for _ in range(SHARDS)]
        self._claims.clear()
        self._asked.clear()
        for watch in self._schedule_watches:
            watch.end()
        async with self._published:
            self._published.notify_all()
