"""The sweeper: takes up games whose turn deadline passed or whose events are still unpublished,
so nothing waits on the instance that last touched a game; and, now and then, drops
listing-index entries of games that expired.

Games due for attention sit in ``SHARDS`` sorted sets in the store (``store.schedule``). Every
server process runs one sweeper, and each shard is leased to one sweeper at a time
(``store.lease_shards``): a sweeper renews its membership every ``HEARTBEAT_S`` and is handed its
fair share of the shards, taken from sweepers that are gone (their membership ran out, or their
watch closed: a killed process's connection drops at once) or that hold more than their share.
So the fleet's idle cost is one lease call per process and heartbeat, whatever the instance
count, and a dead sweeper's shards pass to the others within a heartbeat.

A sweeper sleeps until the earliest time of its shards (``store.next_due``, read when it takes a
shard, after it swept one, when woken, and at least every ``RECHECK_S``), its next heartbeat, or a
wake-up: a ``schedule`` or ``settle`` that makes a shard's earliest time earlier notifies the
shard's sweeper (``store.sweep_watch``). When a shard is due it claims due games a few at a time
with a lease (a game whose claimer dies is due again when the lease ends), publishes what the
game's outbox still holds, plays a passed deadline's turn with the seat's fallback bot through the
ordinary compare-and-set commit (so it happens once, whoever else races for it: two sweepers may
briefly both think they hold a shard while it changes hands), and settles the game's next time.
The holder of shard ``INDEX_SHARD`` also sweeps the listing index, every ``INDEX_EVERY_S``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import socket

from service.store.port import ScheduleWatch, StoreUnavailable
from service.table.record import GameRecord, UnsupportedRecord
from service.table.table import Table, Timeout, now_ms

log = logging.getLogger("cardgame.sweeper")

HEARTBEAT_S = 1.0      # how often a sweeper renews its membership and leases (and takes up a dead one's)
MEMBER_TTL_MS = 5000   # a sweeper that stopped renewing loses its shards this long after its last renewal
RECHECK_S = 60.0       # a held shard's earliest time is read again at least this often
RETRY_S = 1.0          # pause after the store failed
LEASE_MS = 5000        # a claimed game is due again this long after its claimer went silent
BATCH = 32             # games claimed per shard and round
INDEX_EVERY_S = 30.0   # how often the holder of INDEX_SHARD sweeps each owner's listing index
INDEX_SHARD = 0
INDEX_BATCH = 500      # index entries visited per owner and sweep


def sweeper_name() -> str:
    """A name for this process's sweeper, unique in the fleet: host, process id, random part."""
    host = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-.")[:60] or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(4)}"


class Sweeper:
    """The sweeping task of one server process, acting on games through their table."""

    def __init__(self, table: Table, name: str | None = None, heartbeat_s: float = HEARTBEAT_S) -> None:
        self.table = table
        self.store = table.store
        self.name = name or sweeper_name()
        self.heartbeat_s = heartbeat_s
        self.swept = 0
        self.held: list[int] = []
        self._next: dict[int, int | None] = {}   # held shard -> its earliest time as last read (None: empty)
        self._read_at: dict[int, float] = {}     # held shard -> when that was read (loop time)
        self._index_cursors: dict[str, int] = {}

    async def run(self) -> None:
        """Sweep until cancelled; store outages are waited out. On the way out the sweeper's
        shards are given up, so the other sweepers take them at their next heartbeat."""
        try:
            while True:
                try:
                    watch = await self.store.sweep_watch(self.name)
                except StoreUnavailable as exc:
                    log.warning("sweeper cannot watch the schedule (%s); retrying", exc)
                    await asyncio.sleep(RETRY_S)
                    continue
                try:
                    await self._serve(watch)
                except StoreUnavailable as exc:
                    log.warning("sweeping paused (%s); retrying", exc)
                finally:
                    self.held, self._next, self._read_at = [], {}, {}
                    await watch.close()
                await asyncio.sleep(RETRY_S)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.store.release_shards(self.name), RETRY_S)

    async def _serve(self, watch: ScheduleWatch) -> None:
        """Hold shards and sweep them while the watch lasts."""
        loop = asyncio.get_running_loop()
        next_beat = loop.time()
        next_index = loop.time() + random.uniform(0, INDEX_EVERY_S)
        while True:
            if loop.time() >= next_beat:
                next_beat = loop.time() + self.heartbeat_s
                await self._beat(watch)
            if INDEX_SHARD in self.held and loop.time() >= next_index:
                next_index = loop.time() + INDEX_EVERY_S
                await self.sweep_index()
            if await self._sweep_due():
                continue
            known = [at for at in self._next.values() if at is not None]
            wait_s = next_beat - loop.time()
            if known:
                wait_s = min(wait_s, (min(known) - now_ms()) / 1000)
            for shard in await watch.wait(wait_s):
                self._forget(shard)

    async def _beat(self, watch: ScheduleWatch) -> None:
        """Renew the membership; follow the shards held now (a new one's time is read next)."""
        held = await self.store.lease_shards(self.name, MEMBER_TTL_MS)
        if held != self.held:
            await watch.follow(held)   # subscribed before the new shards' times are read
            for shard in set(self._next) - set(held):
                self._forget(shard)
            log.info("sweeper %s holds shards %s", self.name, held)
            self.held = held

    def _forget(self, shard: int) -> None:
        """Drop a shard's earliest time: it is read again before the shard is slept on."""
        self._next.pop(shard, None)
        self._read_at.pop(shard, None)

    async def _sweep_due(self) -> bool:
        """Read the times not known (or stale), sweep the held shards that are due; whether any was."""
        loop = asyncio.get_running_loop()
        busy = False
        for shard in self.held:
            if shard not in self._next or loop.time() - self._read_at[shard] >= RECHECK_S:
                self._next[shard] = await self.store.next_due(shard)
                self._read_at[shard] = loop.time()
            at = self._next[shard]
            if at is None or at > now_ms():
                continue
            try:
                busy |= await self.sweep(shard)
                self._forget(shard)
            except StoreUnavailable:
                raise
            except Exception:  # never let one game stop the sweeping of all the others
                log.exception("sweep of shard %d failed; its games are due again after their lease", shard)
                self._next[shard] = now_ms() + int(RETRY_S * 1000)
        return busy

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
