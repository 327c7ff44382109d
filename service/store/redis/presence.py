"""The watched games' presence: a game whose keys expired tells its watchers version 0, as a
deletion does (``Presence``, run by the RedisStore while any game is watched)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from service.store.port import StoreUnavailable
from service.store.redis.connection import unavailable_on_error
from service.store.redis.feed import Listener

log = logging.getLogger("service.store.redis.store")


PRESENCE_CHECK_S = 2.0   # how often the watched games' existence is read (a game that expired sends no message)
PRESENCE_BATCH = 1000    # state keys per EXISTS


class Presence:
    """Tells the watchers of a game that vanished without a message version 0, as a deletion does.

    A game's keys that expire (or are lost with a Redis that failed over without them) publish
    nothing: without keyspace notifications, which the store does not rely on, nobody hears of it.
    So, every ``every_s`` while any game is watched, one task reads whether the watched games still
    exist: one EXISTS of all their state keys (one per slot on a cluster, where the client splits
    it). When the count falls short, each game's version is read to find the ones gone, and their
    watchers are told 0. The cost does not grow with the games watched on one Redis."""

    def __init__(self, store: Any, every_s: float = PRESENCE_CHECK_S) -> None:
        """Check the games watched through ``store`` (it gives ``client``, ``key`` and ``read_version``)."""
        self._store = store
        self._every_s = every_s
        self._watched: dict[str, set[Listener]] = {}
        self._task: asyncio.Task[None] | None = None

    def add(self, game_id: str, watcher: Listener) -> None:
        """Check ``game_id`` for ``watcher`` from now on."""
        self._watched.setdefault(game_id, set()).add(watcher)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="redis-watch-presence")

    def remove(self, game_id: str, watcher: Listener) -> None:
        """Stop checking ``game_id`` for ``watcher`` (the task ends with the last watched game)."""
        watchers = self._watched.get(game_id)
        if watchers is not None:
            watchers.discard(watcher)
            if not watchers:
                del self._watched[game_id]

    async def close(self) -> None:
        """Stop checking."""
        self._watched.clear()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while self._watched:
            await asyncio.sleep(self._every_s)
            try:
                await self.check()
            except StoreUnavailable as exc:   # the next round tries again; the feeds wait out outages
                log.info("cannot read whether the watched games still exist: %s", exc)
            except Exception:
                log.warning("reading whether the watched games still exist failed", exc_info=True)
        self._task = None

    async def check(self) -> list[str]:
        """Tell the watchers of every watched game that no longer exists version 0; return those games."""
        game_ids = list(self._watched)
        gone: list[str] = []
        for start in range(0, len(game_ids), PRESENCE_BATCH):
            batch = game_ids[start:start + PRESENCE_BATCH]
            with unavailable_on_error("presence"):
                found = int(await self._store.client.exists(*(self._store.key(g, "state") for g in batch)))
            if found < len(batch):
                versions = await self._store._per_game(batch, self._store.read_version)
                gone += [game_id for game_id, version in zip(batch, versions, strict=True) if version == 0]
        for game_id in gone:
            for watcher in list(self._watched.get(game_id, ())):
                watcher.notify(0)
        return gone
