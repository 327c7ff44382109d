"""The schedule of the Redis store: when each game is due, in ``SHARDS`` sorted sets, and which
sweeper holds which shard.

- ``P:due:{n}``  sorted set, ``n`` in 0..SHARDS-1 (``shard_of``): game id -> epoch ms when the
  game is due, or the end of its claim's lease; under the shard's hash tag ``{<n>}``, no TTL
  (``settle`` drops a game that is done)
- ``P:due:{n}:claims``  hash: ``c:<game id>`` -> the token of the game's latest claim, and
  ``a:<game id>`` -> the earliest time asked for the game (``schedule``) while it was claimed,
  which the claim's ``settle`` keeps (a settle that holds forgets both; after one that does not,
  the game's next claim replaces its token and its settle takes the time asked): entries exist
  only for games on the schedule
- ``P:due:{n}:wake``  channel: the new earliest time of the shard, published (SPUBLISHed on a
  Redis Cluster) by the ``schedule`` or ``settle`` that made it earlier; the shard's sweeper
  subscribes to it
- ``P:sweepers:{sweep}``  sorted set, sweeper -> end of its membership (the callers' clock, ms)
- ``P:sweepers:{sweep}:leases``  hash, shard -> the sweeper holding it
- ``P:sweepers:{sweep}:alive:<sweeper>``  channel: the sweeper subscribes to it while it runs, so
  a killed sweeper is seen gone at once (PUBSUB NUMSUB, or SHARDNUMSUB on a Redis Cluster) instead
  of when its membership ends; ``lease_shards`` publishes on it when it takes the sweeper's shards

The sweepers' keys share the hash tag ``{sweep}``: one script renews a membership and settles
every lease, and one PUBSUB NUMSUB there checks every holder. With a caller-owned RedisCluster
client (plain PUBLISH, subscribers on any node) the presence cannot be seen from the leases' node,
and members are judged by their renewals alone.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from redis.asyncio.cluster import RedisCluster

from service.store.port import SHARDS, ShardLeases, shard_of
from service.store.ports.coordination import WakeSignals
from service.store.redis.base import RedisBase
from service.store.redis.connection import unavailable_on_error


class RedisSchedule(RedisBase):
    """Due times of games, in one sorted set per shard, claimed by leases; shards leased to sweepers."""

    def due_key(self, shard: int) -> str:
        """Return the key of a schedule shard ``<prefix>:due:{<n>}``."""
        return f"{self._prefix}:due:{{{shard}}}"

    def claims_key(self, shard: int) -> str:
        """Return the key of a schedule shard's claims ``<prefix>:due:{<n>}:claims``."""
        return self.due_key(shard) + ":claims"

    def wake_channel(self, shard: int) -> str:
        """Return the channel of a shard's wake-ups ``<prefix>:due:{<n>}:wake``."""
        return self.due_key(shard) + ":wake"

    def sweepers_key(self) -> str:
        """Return the key of the sweepers' memberships ``<prefix>:sweepers:{sweep}`` (the leases
        are the same key + ``:leases``, a presence channel + ``:alive:<sweeper>``)."""
        return f"{self._prefix}:sweepers:{{sweep}}"

    def _presence_command(self) -> str:
        """How lease_shards sees whether a member still subscribes to its presence channel."""
        if self._sharded:
            return "SHARDNUMSUB"
        return "" if isinstance(self._client, RedisCluster) else "NUMSUB"

    async def schedule(self, game_id: str, at_ms: int) -> int | None:
        """Make the game due at ``at_ms`` in ``P:due:{<shard>}`` unless it is due earlier (ZADD LT),
        publishing ``at_ms`` on the shard's wake channel when it is the shard's earliest time now;
        a claimed game keeps ``at_ms`` as asked for its claim's settle. The game's time before,
        None if it had none."""
        with unavailable_on_error("schedule"):
            prior = await self._run("schedule", *self._schedule_script(game_id, at_ms))
        return due_time(prior)

    def _schedule_script(self, game_id: str, at_ms: int) -> tuple[list[str], list[Any]]:
        """The KEYS and ARGV of ``lua/schedule.lua`` for a game and its time."""
        shard = shard_of(game_id)
        return [self.due_key(shard), self.claims_key(shard)], [game_id, at_ms, self.wake_channel(shard)]

    async def claim_due(self, shard: int, now_ms: int, lease_ms: int, count: int) -> list[tuple[str, int]]:
        """Lease up to ``count`` games of the shard due at ``now_ms``, earliest first; each is due
        again at ``now_ms + lease_ms``, the claim token returned with it."""
        token = now_ms + lease_ms
        with unavailable_on_error("claim_due"):
            games = await self._run("claim_due", keys=[self.due_key(shard), self.claims_key(shard)],
                                    args=[now_ms, token, count])
        return [(game.decode(), token) for game in games]

    async def settle(self, game_id: str, claim: int, next_ms: int | None) -> bool:
        """If the game is still due at ``claim``, make it due at the earlier of ``next_ms`` and any
        time asked for it during the claim, or unschedule it (neither); return whether the claim
        still held. A new earliest time of the shard is published."""
        shard = shard_of(game_id)
        with unavailable_on_error("settle"):
            held = await self._run("settle", keys=[self.due_key(shard), self.claims_key(shard)],
                                   args=[game_id, claim, "" if next_ms is None else next_ms, self.wake_channel(shard)])
        return bool(held)

    async def next_due(self, shard: int) -> int | None:
        """Return the shard's earliest score (ZRANGE 0 0 WITHSCORES), None when it is empty."""
        with unavailable_on_error("next_due"):
            first = await self._client.zrange(self.due_key(shard), 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    async def lease_shards(self, sweeper: str, now_ms: int, ttl_ms: int) -> ShardLeases:
        """Renew the sweeper's membership and settle the leases, in one script on the ``{sweep}``
        slot; return its shards, the other holders and the member count."""
        key = self.sweepers_key()
        with unavailable_on_error("lease_shards"):
            held, holders, members = await self._run(
                "lease_shards", keys=[key, key + ":leases"],
                args=[sweeper, now_ms, ttl_ms, SHARDS, key + ":alive:", self._presence_command()])
        return ShardLeases([int(shard) for shard in held], [who.decode() for who in holders], int(members))

    async def sweepers_present(self, sweepers: Sequence[str]) -> bool | None:
        """Whether each named sweeper still subscribes to its presence channel: one PUBSUB NUMSUB
        (SHARDNUMSUB on the ``{sweep}`` slot's node of a Redis Cluster); None without presence."""
        command = self._presence_command()
        if not command:
            return None
        if not sweepers:
            return True
        channels = [f"{self.sweepers_key()}:alive:{who}" for who in sweepers]
        with unavailable_on_error("sweepers_present"):
            if self._sharded:
                node = self._client.get_node_from_key(channels[0])
                reply = await self._client.execute_command("PUBSUB SHARDNUMSUB", *channels, target_nodes=node)
            else:
                reply = await self._client.execute_command("PUBSUB NUMSUB", *channels)
        counts = list(reply.values()) if isinstance(reply, dict) else [count for _, count in _pairs(reply)]
        return len(counts) == len(channels) and all(int(count) > 0 for count in counts)

    async def release_shards(self, sweeper: str) -> None:
        """End the sweeper's membership and free its shards, in one script on the ``{sweep}`` slot."""
        key = self.sweepers_key()
        with unavailable_on_error("release_shards"):
            await self._run("release_shards", keys=[key, key + ":leases"], args=[sweeper])

    async def sweep_watch(self, sweeper: str) -> RedisScheduleWatch:
        """Subscribe to the sweeper's presence channel; return its watch."""
        watch = RedisScheduleWatch(self, sweeper)
        await watch.open()
        return watch


class _Listener:
    """Hands one channel's messages to a watch: a shard's wake-ups, or (shard None) what comes on
    the presence channel: another member took some of the sweeper's shards (or, after a lost
    connection, may have)."""

    __slots__ = ("shard", "watch")

    def __init__(self, watch: RedisScheduleWatch, shard: int | None) -> None:
        self.watch, self.shard = watch, shard

    def notify(self, version: int) -> None:
        if self.shard is None:
            self.watch.robbed()
        else:
            self.watch.woke(self.shard)

    def end(self) -> None:
        self.watch.end()


class RedisScheduleWatch(WakeSignals):
    """A sweeper's subscriptions on the store's pub/sub hub: its presence channel, and the wake
    channel of every shard it follows."""

    def __init__(self, store: RedisSchedule, sweeper: str) -> None:
        super().__init__("the store closed under the sweeper's watch")
        self._store = store
        self._presence = (f"{store.sweepers_key()}:alive:{sweeper}".encode(), _Listener(self, None))
        self._followed: dict[int, _Listener] = {}

    async def open(self) -> None:
        channel, listener = self._presence
        await self._store._hub.add(channel, "", listener)

    async def follow(self, shards: Collection[int]) -> None:
        """Subscribe to the wake channels of the shards not followed yet; drop the others."""
        wanted = set(shards)
        for shard in [s for s in self._followed if s not in wanted]:
            self._store._hub.remove(self._store.wake_channel(shard).encode(), self._followed.pop(shard))
            self._woken.discard(shard)
        for shard in sorted(wanted - set(self._followed)):
            listener = self._followed[shard] = _Listener(self, shard)
            try:
                await self._store._hub.add(self._store.wake_channel(shard).encode(), "", listener)
            except BaseException:
                del self._followed[shard]
                raise

    async def close(self) -> None:
        """Unsubscribe from every channel (the presence last)."""
        for shard, listener in list(self._followed.items()):
            self._store._hub.remove(self._store.wake_channel(shard).encode(), listener)
        self._followed.clear()
        channel, listener = self._presence
        self._store._hub.remove(channel, listener)


def _pairs(reply: Any) -> list[tuple[Any, Any]]:
    """The (channel, count) pairs of a PUBSUB NUMSUB reply given as a flat list or as pairs."""
    items = list(reply or ())
    if items and isinstance(items[0], (list, tuple)):
        return [(channel, count) for channel, count in items]
    return list(zip(items[0::2], items[1::2], strict=True))


def due_time(reply: Any) -> int | None:
    """A game's time from a sorted-set score reply (None: not scheduled)."""
    return None if reply is None else int(float(reply))
