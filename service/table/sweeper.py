"""The sweeper: takes up games whose turn deadline passed or whose events are still unpublished,
so nothing waits on the instance that last touched a game; and, now and then, drops
listing-index entries of games that expired.

Games due for attention sit in ``SHARDS`` sorted sets in the store (``store.schedule``). Every
server process runs one sweeper, and each shard is leased to one sweeper at a time
(``store.lease_shards``): a sweeper that starts is handed its fair share of the shards, taken from
those that hold more, and told when another takes some of its own; it renews its membership every
``RENEW_S``. Between renewals it only looks whether the other holders are still there
(``store.sweepers_present``: one command, and a killed process's watch is gone at once), each
sweeper every ``CHECK_EVERY_S`` times the member count, so the fleet looks about every
``CHECK_EVERY_S`` whatever its size; the first to see a holder gone takes its shards.

A sweeper sleeps until the earliest time of its shards (``store.next_due``, read when it takes a
shard, after it swept one, when woken, and at least every ``RECHECK_S``), its next renewal or look
at the holders, or a wake-up: a ``schedule`` or ``settle`` that makes a shard's earliest time earlier notifies the
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

from service.store.port import ScheduleWatch, StoreBusy, StoreUnavailable
from service.table.record import GameRecord, UnsupportedRecord
from service.table.table import SWEEP_LEASE_MS, Table, Timeout, now_ms

log = logging.getLogger("cardgame.sweeper")

RENEW_S = 60.0          # how often a sweeper renews its membership (a full lease_shards)
MEMBER_TTL_MS = 180_000  # a sweeper that stopped renewing (hung, yet connected) loses its shards after this
CHECK_EVERY_S = 0.6    # the fleet looks at the holders' presence about this often (each sweeper every
                       # CHECK_EVERY_S x members, jittered): how soon a killed sweeper's shards move
RECHECK_S = 300.0      # a held shard's earliest time is read again at least this often (a wake-up missed)
RETRY_S = 1.0          # pause after the store failed
LEASE_MS = SWEEP_LEASE_MS  # a claimed game is due again this long after its claimer went silent
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

    def __init__(self, table: Table) -> None:
        self.table = table
        self.store = table.store
        self.name = sweeper_name()
        self.swept = 0
        self.held: list[int] = []
        self._holders: list[str] = []            # the other sweepers holding shards, as last leased
        self._members = 1
        self._next: dict[int, int | None] = {}   # held shard -> its earliest time as last read (None: empty)
        self._read_at: dict[int, float] = {}     # held shard -> when that was read (loop time)
        self._index_cursors: dict[str, str] = {}

    async def run(self) -> None:
        """Sweep until cancelled; store outages are waited out. On the way out the sweeper's
        shards are given up, so the other sweepers take them at once."""
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
                except Exception:   # a fault of one round (a lease, the index) never ends the sweeping
                    log.exception("sweeping failed; starting again")
                finally:
                    self.held, self._holders, self._next, self._read_at = [], [], {}, {}
                    await watch.close()
                await asyncio.sleep(RETRY_S)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.store.release_shards(self.name), RETRY_S)

    async def _serve(self, watch: ScheduleWatch) -> None:
        """Hold shards and sweep them while the watch lasts."""
        loop = asyncio.get_running_loop()
        next_lease = next_check = loop.time()
        next_index = loop.time() + random.uniform(0, INDEX_EVERY_S)
        while True:
            # StoreBusy: the process is busy, the store fine; the shards and the watch stay, and
            # what failed is tried again after RETRY_S
            if loop.time() >= next_lease:
                try:
                    await self._lease(watch)
                    next_lease, next_check = loop.time() + RENEW_S, loop.time() + self._check_interval()
                except StoreBusy:
                    next_lease = loop.time() + RETRY_S
            elif self._holders and loop.time() >= next_check:
                try:
                    present = await self.store.sweepers_present(self._holders)
                    if present is False:   # a holder is gone: its shards are taken over
                        await self._lease(watch)
                    # a store that cannot tell (None) is left to the renewals
                    next_check = loop.time() + (self._check_interval() if present is not None else RENEW_S)
                except StoreBusy:
                    next_check = loop.time() + RETRY_S
            if INDEX_SHARD in self.held and loop.time() >= next_index:
                next_index = loop.time() + INDEX_EVERY_S
                try:
                    await self.sweep_index()
                except (StoreBusy, StoreUnavailable) as exc:   # the index waits for its next sweep
                    log.warning("index sweep failed (%s); trying again in %.0f s", exc, INDEX_EVERY_S)
            busy = await self._sweep_due()
            wake_at = min(next_lease, next_check) if self._holders else next_lease
            if INDEX_SHARD in self.held:
                wake_at = min(wake_at, next_index)
            wait_s = wake_at - loop.time()
            known = [at for at in self._next.values() if at is not None]
            if known:
                wait_s = min(wait_s, (min(known) - now_ms()) / 1000)
            # a busy round sweeps again at once, after taking in the wake-ups of the other shards
            heard = await watch.wait(0.0 if busy else wait_s)
            for shard in heard.shards:
                self._forget(shard)
            if heard.leases:   # another member took shards of this one (or may have)
                next_lease = loop.time()

    def _check_interval(self) -> float:
        """Seconds to the next look at the holders: the fleet looks about every ``CHECK_EVERY_S``."""
        return CHECK_EVERY_S * self._members * random.uniform(0.5, 1.5)

    async def _lease(self, watch: ScheduleWatch) -> None:
        """Renew the membership; follow the shards held now (a new one's time is read next)."""
        leases = await self.store.lease_shards(self.name, now_ms(), MEMBER_TTL_MS)
        self._holders, self._members = leases.holders, leases.members
        if leases.held != self.held:
            await watch.follow(leases.held)   # subscribed before the new shards' times are read
            for shard in set(self._next) - set(leases.held):
                self._forget(shard)
            log.info("sweeper %s holds shards %s", self.name, leases.held)
            self.held = leases.held

    def _retry_later(self, shard: int) -> None:
        """Look at a shard again after RETRY_S (its time could not be read, or its sweep failed)."""
        self._next[shard] = now_ms() + int(RETRY_S * 1000)
        self._read_at[shard] = asyncio.get_running_loop().time()

    def _forget(self, shard: int) -> None:
        """Drop a shard's earliest time: it is read again before the shard is slept on."""
        self._next.pop(shard, None)
        self._read_at.pop(shard, None)

    async def _sweep_due(self) -> bool:
        """Read the times not known (or stale), sweep the held shards that are due; whether any was."""
        loop = asyncio.get_running_loop()
        busy = False
        for shard in self.held:
            try:
                if shard not in self._next or loop.time() - self._read_at[shard] >= RECHECK_S:
                    self._next[shard] = await self.store.next_due(shard)
                    self._read_at[shard] = loop.time()
                at = self._next[shard]
                if at is None or at > now_ms():
                    continue
                busy |= await self.sweep(shard)
                # read again now: games left leased by another claimer or a failed sweep fall due
                # later without any wake-up, so the shard's next time must be known before sleeping
                self._next[shard] = await self.store.next_due(shard)
                self._read_at[shard] = loop.time()
            except StoreBusy:   # the process is busy, the store fine: this shard waits, the watch stays
                self._retry_later(shard)
            except StoreUnavailable:
                raise
            except Exception:  # never let one game stop the sweeping of all the others
                log.exception("sweep of shard %d failed; its games are due again after their lease", shard)
                self._retry_later(shard)
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
        published = await self.table.publish(game_id, record.owner)
        if record.deadline_ms and record.deadline_ms <= now_ms():
            done = await self.table.transact(game_id, Timeout(), loaded=loaded)
            if done is None:
                await self.store.settle(game_id, claim, None)
                return
            record = done.record
            self.swept += 1
        # What was committed since this read (the timeout's own events, another commit's deadline
        # or events) needs no second look: each commit scheduled the game first, and the store
        # either took that time (earlier than the claim's end: the claim no longer holds) or keeps
        # it for this settle, which then takes the earlier of it and the time worked out here.
        upcoming = [t for t in (record.deadline_ms, 0 if published else now_ms() + LEASE_MS) if t]
        await self.store.settle(game_id, claim, min(upcoming) if upcoming else None)

    async def sweep_index(self) -> None:
        """Drop index entries of games that expired, a bounded batch per owner and call."""
        for owner in await self.store.owners():
            cursor = self._index_cursors.get(owner, "")
            self._index_cursors[owner] = await self.store.sweep_index(owner, cursor, INDEX_BATCH)
