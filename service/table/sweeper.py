"""The sweeper: every instance takes up games whose turn deadline passed or whose events are
still unpublished, so nothing waits on the instance that last touched a game; and, now and
then, drops listing-index entries of games that expired.

Games due for attention sit in sharded sorted sets in the store (``store.schedule``). Each
instance claims due games a few at a time with a lease (a game whose claimer dies is due again
when the lease ends), publishes what the game's outbox still holds, plays a passed deadline's
turn with the seat's fallback bot through the ordinary compare-and-set commit (so it happens
once, however many instances race for it), and settles the game's next time, if any.
"""

from __future__ import annotations

import asyncio
import logging
import random

from service.store.port import SHARDS, StoreUnavailable
from service.table.record import GameRecord, UnsupportedRecord
from service.table.table import Table, Timeout, now_ms

log = logging.getLogger("cardgame.sweeper")

INTERVAL_S = 0.1     # how often an idle sweeper looks again
LEASE_MS = 5000      # a claimed game is due again this long after its claimer went silent
BATCH = 32           # games claimed per shard and round
INDEX_EVERY_S = 30.0  # how often each owner's listing index is swept of expired games
INDEX_BATCH = 500     # index entries visited per owner and sweep


class Sweeper:
    """The sweeping task of one server process, acting on games through their table."""

    def __init__(self, table: Table, interval_s: float = INTERVAL_S) -> None:
        self.table = table
        self.store = table.store
        self.interval_s = interval_s
        self.swept = 0
        self._index_cursors: dict[str, int] = {}

    async def run(self) -> None:
        """Sweep until cancelled; store outages are waited out."""
        shards = list(range(SHARDS))
        random.shuffle(shards)  # instances start on different shards
        loop = asyncio.get_running_loop()
        next_index = loop.time() + random.uniform(0, INDEX_EVERY_S)
        while True:
            if loop.time() >= next_index:
                next_index = loop.time() + INDEX_EVERY_S
                try:
                    await self.sweep_index()
                except StoreUnavailable as exc:
                    log.warning("index sweep failed (%s); retrying later", exc)
            busy = False
            for shard in shards:
                try:
                    busy |= await self.sweep(shard)
                except StoreUnavailable as exc:
                    log.warning("sweep of shard %d failed (%s); retrying", shard, exc)
                    await asyncio.sleep(1.0)
                except Exception:  # never let one game stop the sweeping of all the others
                    log.exception("sweep of shard %d failed; its games are due again after their lease", shard)
                    await asyncio.sleep(1.0)
            if not busy:
                await asyncio.sleep(self.interval_s)

    async def sweep(self, shard: int) -> bool:
        """Attend to the due games of one shard; whether there were any."""
        claims = await self.store.claim_due(shard, now_ms(), LEASE_MS, BATCH)
        if claims:  # concurrently, so one game's store round trips overlap the next one's work
            await asyncio.gather(*(self.attend(game_id, claim) for game_id, claim in claims))
        return bool(claims)

    async def attend(self, game_id: str, claim: int) -> None:
        """Publish the game's pending events, play its passed deadline (from the game as read here:
        a commit since then makes it read the game again), settle its next time."""
        loaded = await self.store.load(game_id)
        if loaded is None:
            await self.store.settle(game_id, claim, None)
            return
        try:
            record = GameRecord.from_bytes(loaded.state)
        except UnsupportedRecord:
            await self.store.settle(game_id, claim, None)
            return
        await self.table.publish(game_id, record.owner)
        if record.deadline_ms and record.deadline_ms <= now_ms():
            done = await self.table.transact(game_id, Timeout(), loaded=loaded)
            if done is None:
                await self.store.settle(game_id, claim, None)
                return
            record = done.record
            self.swept += 1
        pending = await self.store.outbox(game_id)
        upcoming = [t for t in (record.deadline_ms, now_ms() + LEASE_MS if pending else 0) if t]
        await self.store.settle(game_id, claim, min(upcoming) if upcoming else None)
        # A commit elsewhere during the lease may have set a deadline this settle just overwrote:
        # the game as it stands now is scheduled again (a lower time always wins).
        latest = await self.store.load(game_id)
        if latest is not None:
            deadline = GameRecord.from_bytes(latest.state).deadline_ms
            if deadline:
                await self.store.schedule(game_id, deadline)

    async def sweep_index(self) -> None:
        """Drop index entries of games that expired, a bounded batch per owner and call."""
        for owner in await self.store.owners():
            cursor = self._index_cursors.get(owner, 0)
            self._index_cursors[owner] = await self.store.sweep_index(owner, cursor, INDEX_BATCH)



