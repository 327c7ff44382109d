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


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def store(request: pytest.FixtureRequest, clock: FakeClock,
          event_loop: asyncio.AbstractEventLoop) -> Iterator[Store]:
    """Each store implementation, checked."""
    if request.param == "memory":
        made: Store = checked(MemoryStore(clock=clock))
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
        assert await watch.wait(0.05) == set()
        game, later, elsewhere = game_on_shard(2), game_on_shard(2), game_on_shard(9)
        await store.schedule(game, 50_000)                # the shard's first time
        assert await asyncio.wait_for(watch.wait(WAIT_S), WAIT_S) == {2}
        await store.schedule(later, 60_000)               # not earlier than the earliest: no wake-up
        await store.schedule(elsewhere, 1_000)            # a shard not followed
        assert await watch.wait(0.2) == set()
        await store.schedule(later, 40_000)               # earlier than the earliest
        assert await watch.wait(WAIT_S) == {2}
        claims = await store.claim_due(2, 50_000, 100, 10)
        assert sorted(claims) == sorted([(later, 50_100), (game, 50_100)])
        assert await store.settle(game, 50_100, 70_000) is True   # not earlier than the other claim
        assert await watch.wait(0.2) == set()
        assert await store.settle(later, 50_100, 45_000) is True  # earlier than anything left
        assert await watch.wait(WAIT_S) == {2}
        await watch.follow([6])                           # shard 2 no longer followed
        await store.schedule(game_on_shard(2), 1)
        assert await watch.wait(0.2) == set()
    finally:
        await watch.close()


async def test_sweepers_share_the_shards_one_holder_each(store: Store) -> None:
    watches = {name: await store.sweep_watch(name) for name in ("a", "b", "c")}
    try:
        assert await store.lease_shards("a", 60_000) == list(range(SHARDS))
        b = await store.lease_shards("b", 60_000)
        assert len(b) == SHARDS // 2                      # taken from the member above its share
        a = await store.lease_shards("a", 60_000)
        assert sorted(a + b) == list(range(SHARDS))
        c = await store.lease_shards("c", 60_000)
        held = {name: await store.lease_shards(name, 60_000) for name in ("a", "b", "c")}
        assert held["c"] == c and 4 <= len(c) <= 6
        assert sorted(s for shards in held.values() for s in shards) == list(range(SHARDS))
        assert all(len(shards) <= 6 for shards in held.values())
        await store.release_shards("c")                   # a clean stop: its shards are free at once
        a = await store.lease_shards("a", 60_000)
        b = await store.lease_shards("b", 60_000)
        assert sorted(a + b) == list(range(SHARDS)) and len(a) == len(b) == SHARDS // 2
    finally:
        for watch in watches.values():
            await watch.close()


async def test_a_sweeper_whose_watch_closed_loses_its_shards_at_once(store: Store) -> None:
    first, second = await store.sweep_watch("first"), await store.sweep_watch("second")
    try:
        await store.lease_shards("first", 60_000)
        mine = await store.lease_shards("second", 60_000)
        theirs = await store.lease_shards("first", 60_000)
        assert mine and theirs
        await first.close()                               # the process died: its connection is gone
        if isinstance(store.inner, RedisStore):  # type: ignore[attr-defined]
            await asyncio.sleep(0.2)                      # the unsubscribe reaches Redis
        assert await store.lease_shards("second", 60_000) == list(range(SHARDS))
    finally:
        await first.close()
        await second.close()


async def test_a_sweeper_that_stops_renewing_loses_its_shards(store: Store, clock: FakeClock) -> None:
    hung, live = await store.sweep_watch("hung"), await store.sweep_watch("live")
    try:
        await store.lease_shards("hung", 200)             # still connected, but it renews no more
        assert len(await store.lease_shards("live", 60_000)) == SHARDS // 2
        clock.now += 0.3
        await asyncio.sleep(0.3)                          # Redis judges by its own clock
        assert await store.lease_shards("live", 60_000) == list(range(SHARDS))
    finally:
        await hung.close()
        await live.close()


async def test_sweeper_arguments_are_checked(store: Store) -> None:
    for bad in ("", "a b", "x{y}", "n" * 200):
        with pytest.raises(ValueError):
            await store.lease_shards(bad, 1000)
        with pytest.raises(ValueError):
            await store.sweep_watch(bad)
    with pytest.raises(ValueError):
        await store.lease_shards("ok", 0)
    with pytest.raises(ValueError):
        await store.next_due(SHARDS)
