"""The schedule's sweeper side, one contract for MemoryStore and RedisStore: a shard's earliest
time, wake-ups when a write makes it earlier, and the shards leased to sweepers (fair shares,
a gone sweeper's shards taken over, by its closed watch at once or by its membership ending)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest

from service.store.checked import checked
from service.store.memory import MemoryStore
from service.store.port import SHARDS, Store, shard_of
from service.store.redis.store import RedisStore

WAIT_S = 5.0


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def store(request: pytest.FixtureRequest, event_loop: asyncio.AbstractEventLoop) -> Iterator[Store]:
    """Each store implementation, checked."""
    if request.param == "memory":
        made: Store = checked(MemoryStore())
    else:
        made = checked(RedisStore(request.getfixturevalue("redis_url"), prefix=request.getfixturevalue("redis_prefix")))
    yield made
    event_loop.run_until_complete(made.close())


def game_on_shard(shard: int) -> str:
    while True:
        game = uuid.uuid4().hex
        if shard_of(game) == shard:
            return game


async def test_next_due_is_the_earliest_time_of_the_shard(store: Store) -> None:
    assert await store.next_due(4) is None
    first, second = game_on_shard(4), game_on_shard(4)
    await store.schedule(first, 9_000)
    await store.schedule(second, 7_000)
    assert await store.next_due(4) == 7_000
    assert await store.claim_due(4, 7_000, 5_000, 10) == [(second, 12_000)]
    assert await store.next_due(4) == 9_000           # the claimed game is due at its lease's end
    assert await store.settle(second, 12_000, None) is True
    assert await store.next_due(4) == 9_000
    assert await store.claim_due(4, 9_000, 1, 10) == [(first, 9_001)]
    assert await store.settle(first, 9_001, None) is True
    assert await store.next_due(4) is None
    assert [await store.next_due(s) for s in range(SHARDS) if s != 4] == [None] * (SHARDS - 1)


async def test_a_write_that_makes_a_shard_earlier_wakes_its_follower(store: Store) -> None:
    watch = await store.sweep_watch("wakes")
    try:
        await watch.follow([2, 6])
        assert await watch.wait(0.05) == (set(), False)
        game, later, elsewhere = game_on_shard(2), game_on_shard(2), game_on_shard(9)
        await store.schedule(game, 50_000)                # the shard's first time
        assert (await asyncio.wait_for(watch.wait(WAIT_S), WAIT_S)).shards == {2}
        await store.schedule(later, 60_000)               # not earlier than the earliest: no wake-up
        await store.schedule(elsewhere, 1_000)            # a shard not followed
        assert (await watch.wait(0.2)).shards == set()
        await store.schedule(later, 40_000)               # earlier than the earliest
        assert (await watch.wait(WAIT_S)).shards == {2}
        claims = await store.claim_due(2, 50_000, 100, 10)
        assert sorted(claims) == sorted([(later, 50_100), (game, 50_100)])
        assert await store.settle(game, 50_100, 70_000) is True   # not earlier than the other claim
        assert (await watch.wait(0.2)).shards == set()
        assert await store.settle(later, 50_100, 45_000) is True  # earlier than anything left
        assert (await watch.wait(WAIT_S)).shards == {2}
        await watch.follow([6])                           # shard 2 no longer followed
        await store.schedule(game_on_shard(2), 1)
        assert (await watch.wait(0.2)).shards == set()
    finally:
        await watch.close()


NOW = 1_700_000_000_000


async def test_sweepers_share_the_shards_one_holder_each(store: Store) -> None:
    watches = {name: await store.sweep_watch(name) for name in ("a", "b", "c")}
    try:
        first = await store.lease_shards("a", NOW, 60_000)
        assert first == (list(range(SHARDS)), [], 1)
        b = await store.lease_shards("b", NOW, 60_000)
        assert len(b.held) == SHARDS // 2 and b.holders == ["a"] and b.members == 2   # from the one above its share
        assert (await watches["a"].wait(WAIT_S)).leases                              # a is told
        a = await store.lease_shards("a", NOW, 60_000)
        assert sorted(a.held + b.held) == list(range(SHARDS)) and a.holders == ["b"]
        c = await store.lease_shards("c", NOW, 60_000)
        held = {name: (await store.lease_shards(name, NOW, 60_000)).held for name in ("a", "b", "c")}
        assert held["c"] == c.held and 4 <= len(c.held) <= 6 and c.members == 3
        assert sorted(s for shards in held.values() for s in shards) == list(range(SHARDS))
        assert all(len(shards) <= 6 for shards in held.values())
        assert await store.sweepers_present(["a", "b", "c"]) is True
        await store.release_shards("c")                   # a clean stop: its shards are free at once
        a = await store.lease_shards("a", NOW, 60_000)
        assert len(a.held) == 10 and a.members == 2       # every free shard ...
        b = await store.lease_shards("b", NOW, 60_000)
        assert len(b.held) == SHARDS // 2                 # ... until the other takes its share back
        assert sorted((await store.lease_shards("a", NOW, 60_000)).held + b.held) == list(range(SHARDS))
    finally:
        for watch in watches.values():
            await watch.close()


async def test_a_sweeper_whose_watch_closed_loses_its_shards_at_once(store: Store) -> None:
    first, second = await store.sweep_watch("first"), await store.sweep_watch("second")
    try:
        await store.lease_shards("first", NOW, 60_000)
        mine = await store.lease_shards("second", NOW, 60_000)
        assert mine.held and await store.sweepers_present(mine.holders) is True
        await first.close()                               # the process died: its connection is gone
        deadline = asyncio.get_running_loop().time() + WAIT_S
        while await store.sweepers_present(mine.holders):  # the unsubscribe reaches Redis
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.02)
        assert await store.lease_shards("second", NOW, 60_000) == (list(range(SHARDS)), [], 1)
    finally:
        await first.close()
        await second.close()


async def test_a_sweeper_that_stops_renewing_loses_its_shards(store: Store) -> None:
    hung, live = await store.sweep_watch("hung"), await store.sweep_watch("live")
    try:
        await store.lease_shards("hung", NOW, 200)        # still connected, but it renews no more
        assert len((await store.lease_shards("live", NOW + 100, 60_000)).held) == SHARDS // 2
        assert await store.lease_shards("live", NOW + 200, 60_000) == (list(range(SHARDS)), [], 1)
    finally:
        await hung.close()
        await live.close()


async def test_sweeper_arguments_are_checked(store: Store) -> None:
    for bad in ("", "a b", "x{y}", "n" * 200):
        with pytest.raises(ValueError):
            await store.lease_shards(bad, NOW, 1000)
        with pytest.raises(ValueError):
            await store.sweep_watch(bad)
        with pytest.raises(ValueError):
            await store.sweepers_present([bad])
    with pytest.raises(ValueError):
        await store.lease_shards("ok", NOW, 0)
    with pytest.raises(ValueError):
        await store.lease_shards("ok", -1, 10)
    with pytest.raises(ValueError):
        await store.sweepers_present("ok")
    with pytest.raises(ValueError):
        await store.next_due(SHARDS)
