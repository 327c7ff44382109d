"""The schedule of the in-process store: one sorted set per shard, game id -> due ms or lease end,
and each claimed game's token and the earliest time asked while it was claimed; the
sweepers' memberships (ends on the callers' clock), the shards' leases, the sweepers present (an
open watch) and the watches following each shard."""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence

from service.store.memory.base import MemoryBase
from service.store.port import SHARDS, ShardLeases, shard_of
from service.store.ports.coordination import WakeSignals


class MemorySchedule(MemoryBase):
    """Due times of games, claimed by leases; shards leased to sweepers."""

    async def schedule(self, game_id: str, at_ms: int) -> int | None:
        """Make the game due at ``at_ms`` unless it is already due earlier; wake the shard's
        followers when that is its earliest time now. Returns the game's time before, if any."""
        index = shard_of(game_id)
        shard = self._due[index]
        self._check_open()
        prior = shard.scores.get(game_id)
        if prior is not None and self._claims.get(game_id) == prior and at_ms >= prior:
            # claimed, and after the claim's end: its settle keeps at_ms (an earlier one takes the score)
            self._asked[game_id] = min(at_ms, self._asked.get(game_id, at_ms))
        if prior is None or prior >= at_ms:
            earliest = shard.first_score()
            shard.add(game_id, at_ms)
            if earliest is None or at_ms < earliest:
                self._wake(index)
        return prior

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms``, earliest first (ties: by id);
        each is due again at ``now_ms + lease_ms``, the claim token returned with it."""
        token = now_ms + lease_ms
        self._check_open()
        due = self._due[shard]
        claimed = [game_id for at, game_id in itertools.islice(due.order, count) if at <= now_ms]
        for game_id in claimed:
            due.add(game_id, token)
            self._claims[game_id] = token
        return [(game_id, token) for game_id in claimed]

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim``, make it due at the earlier of ``next_ms`` and any
        time scheduled during the claim, or unschedule it (neither); return whether the claim
        still held. A new earliest time of the shard wakes its followers."""
        index = shard_of(game_id)
        due = self._due[index]
        self._check_open()
        if due.scores.get(game_id) != claim:
            return False
        self._claims.pop(game_id, None)
        asked = self._asked.pop(game_id, None)
        if asked is not None and (next_ms is None or asked < next_ms):
            next_ms = asked
        if next_ms is None:
            due.remove(game_id)
        else:
            earliest = due.first_score()
            due.add(game_id, next_ms)
            if earliest is None or next_ms < earliest:
                self._wake(index)
        return True

    async def next_due(self, shard: int) -> int | None:
        """Return the shard's earliest time, None when it is empty."""
        self._check_open()
        return self._due[shard].first_score()

    async def lease_shards(self, sweeper: str, now_ms: int, ttl_ms: int) -> ShardLeases:
        """Renew the sweeper's membership, drop members gone (membership ended, or no watch open),
        free their shards, give the caller every free shard and up to its fair share from the
        member holding the most (telling it); return its shards, the other holders and the count."""
        self._check_open()
        members = {who: end for who, end in self._members.items() if end > now_ms}
        members[sweeper] = now_ms + ttl_ms
        for who in [who for who in members if who != sweeper and not self._present.get(who)]:
            del members[who]
        self._members = members
        holder = {shard: who for shard, who in self._leases.items() if who in members}
        count: dict[str, int] = {}
        for who in holder.values():
            count[who] = count.get(who, 0) + 1
        share = -(-SHARDS // len(members))
        mine = count.get(sweeper, 0)
        for shard in range(SHARDS):   # every free shard: none waits for another member's next call
            if shard not in holder:
                holder[shard], mine = sweeper, mine + 1
        robbed: set[str] = set()
        while mine < share:
            most: str | None = None
            most_n = share
            for shard in range(SHARDS):
                held_by = holder.get(shard)
                if held_by is not None and held_by != sweeper and count[held_by] > most_n:
                    most, most_n = held_by, count[held_by]
            if most is None:
                break
            shard = max(s for s, who in holder.items() if who == most)
            holder[shard], count[most], mine = sweeper, count[most] - 1, mine + 1
            robbed.add(most)
        self._leases = holder
        for watch in self._schedule_watches:
            if watch.sweeper in robbed:
                watch.robbed()
        others = dict.fromkeys(holder[shard] for shard in sorted(holder) if holder[shard] != sweeper)
        return ShardLeases(sorted(s for s, who in holder.items() if who == sweeper), list(others), len(members))

    async def sweepers_present(self, sweepers: Sequence[str]) -> bool | None:
        """Whether every named sweeper has a watch open."""
        self._check_open()
        return all(self._present.get(who) for who in sweepers)

    async def release_shards(self, sweeper: str) -> None:
        """End the sweeper's membership and free its shards."""
        self._check_open()
        self._members.pop(sweeper, None)
        self._leases = {shard: who for shard, who in self._leases.items() if who != sweeper}

    async def sweep_watch(self, sweeper: str) -> MemoryScheduleWatch:
        """Mark the sweeper present while the returned watch is open."""
        self._check_open()
        watch = MemoryScheduleWatch(self, sweeper)
        self._present[sweeper] = self._present.get(sweeper, 0) + 1
        self._schedule_watches.add(watch)
        return watch

    def _wake(self, shard: int) -> None:
        for watch in self._schedule_watches:
            watch.woke(shard)


class MemoryScheduleWatch(WakeSignals):
    """A sweeper's presence in a MemoryStore and the shards whose wake-ups it takes."""

    def __init__(self, store: MemorySchedule, sweeper: str) -> None:
        super().__init__("memory store is closed")
        self._store, self.sweeper = store, sweeper
        self._followed: set[int] = set()
        self._closed = False

    async def follow(self, shards: Collection[int]) -> None:
        """Take the wake-ups of exactly these shards from now on."""
        self._followed = set(shards)
        self._woken &= self._followed

    async def close(self) -> None:
        """End the sweeper's presence and its wake-ups."""
        if self._closed:
            return
        self._closed = True
        self._store._schedule_watches.discard(self)
        present = self._store._present
        present[self.sweeper] -= 1
        if not present[self.sweeper]:
            del present[self.sweeper]
