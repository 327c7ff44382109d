"""The sweepers' side of the schedule on a real three-node Redis Cluster: wake-ups SPUBLISHed on
each shard's slot and read by the node's SSUBSCRIBE hub, and leases judged by presence
(SHARDNUMSUB on the ``{sweep}`` slot's node)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from service.store.port import SHARDS, shard_of
from service.store.redis.store import RedisStore
from testkit.redis_server import PrivateRedisCluster


@pytest.fixture(scope="module")
def cluster():
    """A private three-master cluster for this module."""
    with PrivateRedisCluster() as nodes:
        yield nodes


def _game_on(shard: int) -> str:
    while True:
        game = uuid.uuid4().hex
        if shard_of(game) == shard:
            return game


async def test_wake_ups_and_leases_work_across_the_nodes(cluster):
    store = RedisStore(cluster.url, cluster=True, prefix=f"sweep-{uuid.uuid4().hex[:8]}")
    try:
        first, second = await store.sweep_watch("first"), await store.sweep_watch("second")
        await first.follow(range(SHARDS))
        for shard in range(SHARDS):   # every shard's slot, on whichever node serves it
            await store.schedule(_game_on(shard), 10_000 + shard)
            assert (await asyncio.wait_for(first.wait(5), 5)).shards == {shard}
            assert await store.next_due(shard) == 10_000 + shard
        now = 1_700_000_000_000
        assert (await store.lease_shards("first", now, 60_000)).held == list(range(SHARDS))
        mine = await store.lease_shards("second", now, 60_000)
        assert len(mine.held) == SHARDS // 2 and mine.holders == ["first"]
        assert (await asyncio.wait_for(first.wait(5), 5)).leases    # told on its presence channel
        assert await store.sweepers_present(["first", "second"]) is True
        await second.close()          # gone: seen at once, long before its membership ends
        for _ in range(100):
            if not await store.sweepers_present(["second"]):
                break
            await asyncio.sleep(0.02)
        assert await store.lease_shards("first", now, 60_000) == (list(range(SHARDS)), [], 1)
        await first.close()
    finally:
        await store.close()
