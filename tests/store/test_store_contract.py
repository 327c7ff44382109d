"""One contract suite for every Store: MemoryStore and RedisStore must behave the same.

The stores under test are checked (``service.store.checked``), as ``open_store`` gives them: the
validation tests cover the one wrapper that checks the arguments of either back-end. A third
back-end runs the suite too when ``CARDGAME_STORE_FACTORY`` names a function (``module:function``)
that takes the fake clock and the TTLs as keywords and returns it unchecked (docs/architecture.md,
"Writing a third back-end"); ``-k third`` picks its runs.

Redis-only tests at the end cover what only Redis has: two server processes sharing it, the
key layout, and Redis going away and coming back.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Protocol, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.store.backends import open_store
from service.store.checked import CHECKS, PORT_METHODS, CheckedStore, _checking, checked
from service.store.memory import MemoryStore
from service.store.port import (
    MAX_MS,
    MAX_OUTBOX,
    SHARDS,
    BadCursor,
    Commit,
    Committed,
    GameExists,
    Loaded,
    Store,
    StoreUnavailable,
    shard_of,
    validate_cursor,
)
from service.store.redis.store import RedisStore

TTLS = {"idle_ttl_s": 1000, "finished_ttl_s": 100, "request_ttl_s": 500, "max_requests": 10}
WAIT_S = 5.0


class FakeClock:
    """A monotonic clock that only moves when told to."""

    def __init__(self) -> None:
        """Start at an arbitrary time."""
        self.now = 1000.0

    def __call__(self) -> float:
        """Return the current time."""
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    """The MemoryStore's clock."""
    return FakeClock()


THIRD = os.environ.get("CARDGAME_STORE_FACTORY", "")   # "module:function" of a third back-end


def third_store(clock: FakeClock) -> Store:
    """The third back-end CARDGAME_STORE_FACTORY names, made with the fake clock and the TTLs."""
    module, _, function = THIRD.partition(":")
    return cast(Store, getattr(importlib.import_module(module), function)(clock=clock, **TTLS))


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis),
                        *(["third"] if THIRD else [])])
def store(request: pytest.FixtureRequest, clock: FakeClock,
          event_loop: asyncio.AbstractEventLoop) -> Iterator[Store]:
    """Each store implementation, checked, with short TTLs and retry records for 10 request ids."""
    if request.param == "memory":
        made: Store = checked(MemoryStore(clock=clock, **TTLS))
    elif request.param == "third":
        made = checked(third_store(clock))
    else:
        made = checked(RedisStore(request.getfixturevalue("redis_url"),
                                  prefix=request.getfixturevalue("redis_prefix"), **TTLS))
    yield made
    event_loop.run_until_complete(made.close())


@pytest.fixture
def redis_pair(redis_url: str, redis_prefix: str,
               event_loop: asyncio.AbstractEventLoop) -> Iterator[tuple[RedisStore, RedisStore]]:
    """Two RedisStore objects on one Redis and prefix: two server processes."""
    pair = (RedisStore(redis_url, prefix=redis_prefix, **TTLS),
            RedisStore(redis_url, prefix=redis_prefix, **TTLS))
    yield pair
    for made in pair:
        event_loop.run_until_complete(made.close())


def redis_of(store: Store) -> RedisStore | None:
    """Return the RedisStore behind a (checked) store, None for another back-end."""
    backend = store.inner if isinstance(store, CheckedStore) else store
    return backend if isinstance(backend, RedisStore) else None


def new_id() -> str:
    """Return a fresh game id."""
    return f"g-{uuid.uuid4().hex}"


async def commit(store: Store, game_id: str, expected: int, state: bytes, *entries: bytes,
                 request_id: str | None = None, retry: bytes | None = None,
                 finished: bool = False, hands: tuple[bytes, ...] = (),
                 events: Sequence[bytes] = ()) -> Committed:
    """Call store.commit with defaults for the optional parts."""
    return await store.commit(Commit(game_id, expected, state, list(entries), request_id, retry,
                                     finished, hands, events))


def events_of(*seqs: int, tag: str = "") -> list[bytes]:
    """Return events numbered by ``seqs``, e.g. ``b"3 {"n":3}"``."""
    return [f'{seq} {{"n":{seq}{tag}}}'.encode() for seq in seqs]


def seqs_of(events: Sequence[bytes]) -> list[int]:
    """Return the seq each event starts with."""
    return [int(event.split(b" ", 1)[0]) for event in events]


def game_on_shard(shard: int, prefix: str = "g") -> str:
    """Return a fresh game id whose schedule shard is ``shard``."""
    for _ in range(10_000):
        game = f"{prefix}-{uuid.uuid4().hex}"
        if shard_of(game) == shard:
            return game
    raise AssertionError("no game id found for the shard")


async def next_version(watch: AsyncIterator[int]) -> int:
    """Return the next version from a watch, failing after WAIT_S."""
    return await asyncio.wait_for(anext(watch), WAIT_S)


async def redis_ttls(store: RedisStore, game_id: str) -> dict[str, int]:
    """Return PTTL (ms) of every key of the game, by key suffix."""
    prefix = store.key(game_id, "")
    keys = [key async for key in store.client.scan_iter(match=f"{prefix}*")]
    return {key.decode()[len(prefix):]: await store.client.pttl(key) for key in keys}


async def test_create_then_load(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    assert await store.load(game) == Loaded(1, b"s1")
    assert await store.log_after(game, 0) == [(1, b"e1")]


async def test_unknown_game(store: Store) -> None:
    game = new_id()
    assert await store.load(game) is None
    assert await store.log_after(game, 0) == []
    assert await store.get_retry(game, "r1") is None
    assert await commit(store, game, 1, b"s", b"e") == Committed(False, 0, None)
    assert await store.load(game) is None


async def test_create_twice_raises_and_keeps_first(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    with pytest.raises(GameExists):
        await store.create(game, b"other", [b"other"])
    assert await store.load(game) == Loaded(1, b"s1")
    assert await store.log_after(game, 0) == [(1, b"e1")]


async def test_create_records_request_id(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"], request_id="r1", retry=b"created")
    assert await store.get_retry(game, "r1") == b"created"
    assert await commit(store, game, 1, b"s2", b"e2", request_id="r1") == \
        Committed(False, 1, b"created")
    assert await store.load(game) == Loaded(1, b"s1")


async def test_commit_adds_one_version_per_event(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    assert await commit(store, game, 1, b"s2", b"a", b"b", b"c") == Committed(True, 4, None)
    assert await store.load(game) == Loaded(4, b"s2")
    assert await commit(store, game, 4, b"s3", b"d") == Committed(True, 5, None)
    assert await store.log_after(game, 1) == [(2, b"a"), (3, b"b"), (4, b"c"), (5, b"d")]


async def test_stale_version_conflicts_and_writes_nothing(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    assert (await commit(store, game, 1, b"s2", b"a")).ok
    stale = await commit(store, game, 1, b"s3", b"b", request_id="r9", retry=b"x",
                         finished=True)
    assert stale == Committed(False, 2, None)
    assert await store.load(game) == Loaded(2, b"s2")
    assert await store.log_after(game, 0) == [(1, b"e1"), (2, b"a")]
    assert await store.get_retry(game, "r9") is None
    if (backend := redis_of(store)) is not None:  # the finished TTL was not applied either
        assert (await redis_ttls(backend, game))["state"] > 900_000


async def test_request_replay_returns_first_response_and_writes_nothing(store: Store) -> None:
    game, other = new_id(), new_id()
    await store.create(game, b"s1", [b"e1"])
    await store.create(other, b"s1", [b"e1"])
    first = await commit(store, game, 1, b"s2", b"a", request_id="r1", retry=b"resp1")
    assert first == Committed(True, 2, None)
    again = await commit(store, game, 2, b"s3", b"b", request_id="r1", retry=b"resp2")
    assert again == Committed(False, 2, b"resp1")
    stale = await commit(store, game, 1, b"s3", b"b", request_id="r1", retry=b"resp2")
    assert stale == Committed(False, 2, b"resp1")
    assert await store.load(game) == Loaded(2, b"s2")
    assert await store.log_after(game, 0) == [(1, b"e1"), (2, b"a")]
    assert await store.get_retry(game, "r1") == b"resp1"
    assert await store.get_retry(other, "r1") is None  # request ids are per game
    assert (await commit(store, other, 1, b"t2", b"x", request_id="r1")).ok


async def test_log_after_is_ascending_and_exclusive(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s", [b"e1"])
    await commit(store, game, 1, b"s", b"e2", b"e3")
    await commit(store, game, 3, b"s", b"e4")
    await commit(store, game, 4, b"s", b"e5", b"e6")
    everything = [(v, f"e{v}".encode()) for v in range(1, 7)]
    for after in range(0, 8):
        assert await store.log_after(game, after) == everything[after:]
    assert await store.log_after(game, -3) == everything


async def test_the_log_keeps_every_entry_and_reads_a_range(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s", [b"e1", b"e2"])
    assert await store.load(game) == Loaded(2, b"s")   # a game starts at as many versions as entries
    version = 2
    for _ in range(3):
        entries = [f"e{version + i}".encode() for i in range(1, 6)]
        version = (await commit(store, game, version, b"s", *entries)).version
    assert version == 17
    assert await store.log_after(game, 0) == [(v, f"e{v}".encode()) for v in range(1, 18)]
    assert await store.log_after(game, 14) == [(15, b"e15"), (16, b"e16"), (17, b"e17")]
    assert await store.log_after(game, 3, until=6) == [(4, b"e4"), (5, b"e5"), (6, b"e6")]
    assert await store.log_after(game, 6, until=6) == []


async def test_retry_records_are_kept_for_the_latest_requests_only(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s", [b"e1"], request_id="c", retry=b"created")
    for i in range(15):
        assert (await commit(store, game, i + 1, b"s", b"e", request_id=f"r{i}", retry=f"x{i}".encode())).ok
    kept = [await store.get_retry(game, f"r{i}") for i in range(15)]
    assert kept == [None] * 5 + [f"x{i}".encode() for i in range(5, 15)]   # max_requests = 10
    assert await store.get_retry(game, "c") is None
    forgotten = await commit(store, game, 16, b"s2", b"again", request_id="r0", retry=b"new")
    assert forgotten == Committed(True, 17, None)   # a forgotten request id counts as new


async def test_watch_yields_current_then_new_versions(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    first, second = store.watch(game), store.watch(game)
    try:
        assert await next_version(first) == 1
        assert await next_version(second) == 1
        await commit(store, game, 1, b"s2", b"a")
        assert await next_version(first) == 2
        await commit(store, game, 2, b"s3", b"b", b"c", b"d")
        assert await next_version(first) == 5
        assert await next_version(second) == 5  # a slow reader skips to the newest
    finally:
        await first.aclose()
        await second.aclose()


async def test_watch_of_missing_game_starts_at_zero(store: Store) -> None:
    game = new_id()
    watch = store.watch(game)
    try:
        assert await next_version(watch) == 0
        await store.create(game, b"s1", [b"e1"])
        assert await next_version(watch) == 1
    finally:
        await watch.aclose()


async def test_watch_tells_a_deletion_as_zero_then_counts_again(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    watch = store.watch(game)
    try:
        assert await next_version(watch) == 1
        await commit(store, game, 1, b"s2", b"a")
        assert await next_version(watch) == 2
        assert await store.delete(game) is True
        assert await next_version(watch) == 0
        await store.create(game, b"again", [b"e"])   # the id made again counts from 1
        assert await next_version(watch) == 1
    finally:
        await watch.aclose()


async def test_watch_ends_when_store_closes(store: Store) -> None:
    game = new_id()
    watch = store.watch(game)
    assert await next_version(watch) == 0
    pending = asyncio.ensure_future(anext(watch))
    await asyncio.sleep(0.05)
    await store.close()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(pending, WAIT_S)


async def test_concurrent_commits_exactly_one_wins(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    results = await asyncio.gather(*(
        commit(store, game, 1, f"s{i}".encode(), f"e{i}".encode(), request_id=f"r{i}",
               retry=f"resp{i}".encode())
        for i in range(50)
    ))
    winners = [i for i, result in enumerate(results) if result.ok]
    assert len(winners) == 1
    assert all(r == Committed(False, 2, None) for r in results if not r.ok)
    winner = winners[0]
    assert results[winner] == Committed(True, 2, None)
    assert await store.load(game) == Loaded(2, f"s{winner}".encode())
    assert await store.log_after(game, 1) == [(2, f"e{winner}".encode())]
    recorded = [await store.get_retry(game, f"r{i}") for i in range(50)]
    assert recorded == [f"resp{winner}".encode() if i == winner else None for i in range(50)]


async def test_concurrent_retries_of_one_request_apply_once(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    results = await asyncio.gather(*(
        commit(store, game, 1, b"s2", b"a", request_id="same", retry=b"resp")
        for _ in range(50)
    ))
    assert sum(result.ok for result in results) == 1
    assert all(r == Committed(False, 2, b"resp") for r in results if not r.ok)
    assert await store.log_after(game, 0) == [(1, b"e1"), (2, b"a")]


async def test_hand_records_are_appended_only_with_a_successful_commit(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    assert await store.hands(game) == []
    assert (await commit(store, game, 1, b"s2", b"a", request_id="r1", retry=b"x", hands=(b"h1",))).ok
    assert not (await commit(store, game, 1, b"s9", b"z", hands=(b"stale",))).ok
    assert (await commit(store, game, 2, b"s9", b"z", request_id="r1", hands=(b"replayed",))).replay == b"x"
    assert (await commit(store, game, 2, b"s3", b"b", b"c", hands=(b"h2", b"h3"))).version == 4
    assert await store.hands(game) == [b"h1", b"h2", b"h3"]
    assert await store.hands(new_id()) == []
    assert await store.hands(game, 1) == [b"h2", b"h3"]
    assert await store.hands(game, 1, 1) == [b"h2"]
    assert await store.hands(game, 2, 10) == [b"h3"]
    assert await store.hands(game, 3, 1) == [] and await store.hands(game, 0, 0) == []


async def test_finished_game_expires_after_finished_ttl(store: Store, clock: FakeClock) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"], request_id="r0", retry=b"c")
    await commit(store, game, 1, b"s2", b"a", request_id="r1", retry=b"resp1", hands=(b"h1",))
    await commit(store, game, 2, b"s3", b"b", request_id="r2", retry=b"resp2", finished=True, hands=(b"h2",))
    if (backend := redis_of(store)) is not None:
        ttls = await redis_ttls(backend, game)
        assert set(ttls) == {"state", "log", "hands", "req"}
        assert all(95_000 < ttl <= 100_000 for ttl in ttls.values()), ttls
        return
    clock.advance(99)
    assert await store.load(game) == Loaded(3, b"s3")
    assert await store.get_retry(game, "r2") == b"resp2"
    clock.advance(2)
    assert await store.load(game) is None
    assert await store.log_after(game, 0) == []
    assert await store.hands(game) == []
    assert await store.get_retry(game, "r2") is None
    await store.create(game, b"again", [b"e"])  # the id is free again
    assert await store.load(game) == Loaded(1, b"again")


async def test_idle_ttl_is_refreshed_by_each_commit(store: Store, clock: FakeClock) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"], request_id="r0", retry=b"c")
    if (backend := redis_of(store)) is not None:
        ttls = await redis_ttls(backend, game)
        assert all(990_000 < ttl <= 1_000_000 for ttl in ttls.values()), ttls
        for part in ("state", "log", "req"):
            await backend.client.pexpire(backend.key(game, part), 5_000)
        await commit(store, game, 1, b"s2", b"a")
        ttls = await redis_ttls(backend, game)
        assert all(990_000 < ttl <= 1_000_000 for ttl in ttls.values()), ttls
        return
    clock.advance(499)
    assert await store.get_retry(game, "r0") == b"c"
    clock.advance(101)
    assert await store.get_retry(game, "r0") is None  # the request TTL is its own
    await commit(store, game, 1, b"s2", b"a")
    clock.advance(999)
    assert await store.load(game) == Loaded(2, b"s2")
    clock.advance(2)
    assert await store.load(game) is None


@pytest.mark.parametrize("bad", ["", "a{b", "a}b", "x" * 300])
async def test_bad_game_id_is_rejected(store: Store, bad: str) -> None:
    with pytest.raises(ValueError):
        await store.load(bad)
    with pytest.raises(ValueError):
        await store.create(bad, b"s", [b"e"])
    with pytest.raises(ValueError):
        await commit(store, bad, 1, b"s", b"e")
    with pytest.raises(ValueError):
        await anext(store.watch(bad))


async def test_malformed_commit_is_rejected(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    with pytest.raises(ValueError):
        await commit(store, game, 1, b"s2")  # no entries
    with pytest.raises(ValueError):
        await store.create(new_id(), b"s", [])
    with pytest.raises(ValueError):
        await commit(store, game, 0, b"s2", b"a")
    with pytest.raises(ValueError):
        await commit(store, game, 1, b"s2", b"a", request_id="")
    assert await store.load(game) == Loaded(1, b"s1")


async def test_ping(store: Store) -> None:
    await store.ping()


async def test_a_token_bucket_gives_its_burst_then_says_how_long_to_wait(store: Store, clock: FakeClock) -> None:
    bucket, other = new_id(), new_id()
    assert [await store.take_token(bucket, 0.001, 3) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = await store.take_token(bucket, 0.001, 3)
    assert 990 < wait <= 1000  # one token in 1000 s
    assert await store.take_token(other, 0.001, 3) == 0.0  # buckets are separate
    with pytest.raises(ValueError):
        await store.take_token("", 1, 1)
    with pytest.raises(ValueError):
        await store.take_token(bucket, 0, 1)
    with pytest.raises(ValueError):
        await store.take_token(bucket, 1, 0)
    if (backend := redis_of(store)) is not None:
        ttl = await backend.client.pttl(f"{backend._prefix}:ratelimit:{{{bucket}}}")
        assert 3_000_000 < ttl <= 3_001_000  # gone once it would be full again


async def test_a_token_bucket_refills_at_its_rate(store: Store, clock: FakeClock) -> None:
    bucket = new_id()
    assert await store.take_token(bucket, 20, 2) == 0.0 and await store.take_token(bucket, 20, 2) == 0.0
    wait = await store.take_token(bucket, 20, 2)
    assert 0 < wait <= 0.05
    clock.advance(0.06)
    if redis_of(store) is not None:
        await asyncio.sleep(0.06)
    assert await store.take_token(bucket, 20, 2) == 0.0


# --- lifecycle: outbox, events, schedule, index, delete ------------------------------------


async def test_events_join_the_outbox_only_with_a_successful_commit(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"], request_id="c", retry=b"created", events=events_of(0))
    assert await store.outbox(game) == events_of(0)
    assert (await commit(store, game, 1, b"s2", b"a", request_id="r1", retry=b"x", events=events_of(1, 2))).ok
    assert not (await commit(store, game, 1, b"s9", b"z", events=events_of(3, tag="stale"))).ok
    replay = await commit(store, game, 2, b"s9", b"z", request_id="r1", events=events_of(3, tag="replayed"))
    assert replay.replay == b"x"
    assert not (await commit(store, new_id(), 1, b"s", b"z", events=events_of(3))).ok
    assert (await commit(store, game, 2, b"s3", b"b")).ok  # a commit without events keeps the outbox
    assert (await commit(store, game, 3, b"s4", b"c", events=events_of(3))).ok
    assert await store.outbox(game) == events_of(0, 1, 2, 3)
    assert await store.outbox(new_id()) == []
    await store.create(other := new_id(), b"s", [b"e"])
    assert await store.outbox(other) == []


async def test_the_outbox_keeps_the_latest_events_and_publishing_empties_it(store: Store) -> None:
    game, owner = new_id(), f"o-{uuid.uuid4().hex}"
    await store.create(game, b"s", [b"e"], events=events_of(*range(1, 601)))
    assert (await commit(store, game, 1, b"s", b"e", events=events_of(*range(601, 1201)))).ok
    kept = await store.outbox(game)
    assert len(kept) == MAX_OUTBOX and seqs_of(kept) == list(range(201, 1201))   # the oldest dropped
    assert await store.publish("o-elsewhere", game, events_of(*range(201, 1001)), 2000) == 800
    assert await store.publish(owner, game, events_of(*range(201, 1001)), 2000) == 800
    assert await store.publish_outbox(owner, game, 2000) == 200    # the rest: each event once
    assert await store.outbox(game) == []
    streamed = await store.read_events(owner, "", 2000, 0)
    assert [seq for seq in seqs_of([event for _, _, event in streamed])] == list(range(201, 1201))
    assert {found for _, found, _ in streamed} == {game}
    assert await store.publish_outbox(owner, game, 2000) == 0      # nothing left
    assert await store.publish_outbox(owner, new_id(), 2000) == 0  # no such game
    assert (await commit(store, game, 2, b"s", b"e", events=events_of(1201))).ok
    assert await store.publish_outbox(owner, game, 5) == 1         # later events follow
    assert seqs_of([event for _, _, event in await store.read_events(owner, streamed[-1][0], 10, 0)]) == [1201]


async def test_racing_outbox_publishers_append_each_event_once(store: Store) -> None:
    game, owner = new_id(), f"o-{uuid.uuid4().hex}"
    await store.create(game, b"s", [b"e"], events=events_of(*range(1, 41)))
    added = await asyncio.gather(*(store.publish_outbox(owner, game, 100) for _ in range(8)))
    assert sum(added) == 40
    assert seqs_of([event for _, _, event in await store.read_events(owner, "", 100, 0)]) == list(range(1, 41))
    assert await store.outbox(game) == []


async def test_malformed_events_are_rejected_and_write_nothing(store: Store) -> None:
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    for bad in ([b"x {}"], [b"7{}"], [b"-1 {}"], [b" 7 {}"], ["7 {}"], events_of(2, 2), events_of(3, 1),
                b"7 {}", events_of(*range(1001))):
        with pytest.raises(ValueError):
            await commit(store, game, 1, b"s2", b"a", events=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            await store.create(new_id(), b"s", [b"e"], events=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            await store.publish("o", game, bad, 10)  # type: ignore[arg-type]
    assert await store.load(game) == Loaded(1, b"s1") and await store.outbox(game) == []
    with pytest.raises(ValueError):
        await store.publish_outbox("o", game, 0)


async def test_publish_appends_each_event_once_in_order(store: Store) -> None:
    owner, game, other = f"o-{uuid.uuid4().hex}", new_id(), new_id()
    assert await store.publish(owner, game, events_of(0, 1, 2), 100) == 3
    assert await store.publish(owner, game, events_of(0, 1, 2), 100) == 0
    assert await store.publish(owner, other, events_of(5), 100) == 1
    assert await store.publish(owner, game, events_of(2, 3, 4), 100) == 2
    assert await store.publish(owner, game, [], 100) == 0
    read = await store.read_events(owner, "", 100, 0)
    assert [(g, e) for _, g, e in read] == [(game, e) for e in events_of(0, 1, 2)] + [(other, events_of(5)[0])] + \
        [(game, e) for e in events_of(3, 4)]
    ids = [entry_id for entry_id, _, _ in read]
    assert all(validate_cursor(entry_id) for entry_id in ids) and len(set(ids)) == len(ids)   # opaque, distinct
    assert await store.stream_end(owner) == ids[-1]
    assert await store.read_events(owner, ids[1], 2, 0) == read[2:4]
    assert await store.read_events(owner, ids[-1], 10, 0) == []
    assert await store.read_events(f"o-{uuid.uuid4().hex}", "", 10, 0) == []  # streams are per owner
    assert [await store.read_events(owner, cursor, 1, 0) for cursor in ids[:-1]] == [[entry] for entry in read[1:]]
    await store.forget(owner, game)   # the game's record goes: its events would be published again
    assert await store.publish(owner, game, events_of(4), 100) == 1
    assert await store.publish(owner, other, events_of(5), 100) == 0


async def test_event_cursors_are_the_stores_own_and_only_it_reads_them(store: Store) -> None:
    owner, game = f"o-{uuid.uuid4().hex}", new_id()
    assert await store.stream_end(owner) == ""                 # no entry yet: the end is the start
    await store.publish(owner, game, events_of(1, 2), 100)
    end = await store.stream_end(owner)
    (first, _, _), (second, _, _) = await store.read_events(owner, "", 10, 0)
    assert end == second and validate_cursor(first) and first != second
    assert await store.read_events(owner, end, 10, 0) == []   # reading after the end: only what comes later
    await store.publish(owner, game, events_of(3), 100)
    assert [event for _, _, event in await store.read_events(owner, end, 10, 0)] == events_of(3)
    for foreign in ("not-a-cursor!", "~", first + "x"):         # of the port's form, never made by the store
        with pytest.raises(BadCursor):
            await store.read_events(owner, foreign, 10, 0)
    with pytest.raises(BadCursor):
        await store.sweep_index(owner, "not-a-cursor!", 10)


async def test_configuration_warnings_are_plain_sentences(store: Store) -> None:
    warnings = await store.configuration_warnings()   # the suite's stores are set up right
    assert warnings == [] and isinstance(warnings, list)


async def test_racing_publishers_append_each_event_once_in_order(store: Store) -> None:
    owner, games = f"o-{uuid.uuid4().hex}", [new_id(), new_id()]
    events = events_of(*range(1, 41))
    # many instances find the same outboxes, each at a different moment (a different prefix)
    added = await asyncio.gather(*(store.publish(owner, games[i % 2], events[:5 + 7 * (i // 2 % 6)], 1000)
                                   for i in range(24)))
    assert sum(added) == 2 * 40
    read = await store.read_events(owner, "", 1000, 0)
    for game in games:
        assert [e for _, g, e in read if g == game] == events
    assert await store.publish(owner, games[0], events, 1000) == 0


async def test_the_event_stream_keeps_about_max_len_newest_entries(store: Store) -> None:
    owner, game = f"o-{uuid.uuid4().hex}", new_id()
    assert await store.publish(owner, game, events_of(*range(300)), 50) == 300
    kept = [event for _, _, event in await store.read_events(owner, "", 1000, 0)]
    assert 50 <= len(kept) < 300  # MAXLEN ~: at least max_len, whole blocks of older ones dropped
    assert kept == events_of(*range(300 - len(kept), 300))
    assert await store.publish(owner, game, events_of(*range(300)), 50) == 0  # the record outlives trimming


async def test_a_blocked_read_wakes_when_another_task_publishes(store: Store) -> None:
    owner, game = f"o-{uuid.uuid4().hex}", new_id()
    await store.publish(owner, game, events_of(1), 100)
    (first_id, _, _), = await store.read_events(owner, "", 10, 0)
    started = time.monotonic()
    assert await store.read_events(owner, first_id, 10, 0) == []  # no wait
    assert await store.read_events(owner, first_id, 10, 150) == []
    waited = time.monotonic() - started
    assert 0.14 <= waited < 2.0, waited
    reader = asyncio.ensure_future(store.read_events(owner, first_id, 10, int(WAIT_S * 1000)))
    await asyncio.sleep(0.1)
    assert not reader.done()
    started = time.monotonic()
    await store.publish(owner, game, events_of(2, 3), 100)
    woken = await asyncio.wait_for(reader, WAIT_S)
    assert [event for _, _, event in woken] == events_of(2, 3)
    assert time.monotonic() - started < 1.0


async def test_a_blocked_read_fails_when_the_store_closes(store: Store) -> None:
    owner = f"o-{uuid.uuid4().hex}"
    reader = asyncio.ensure_future(store.read_events(owner, "", 10, int(WAIT_S * 1000)))
    await asyncio.sleep(0.1)
    await store.close()
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(reader, WAIT_S)


async def test_schedule_only_moves_a_game_earlier(store: Store) -> None:
    game = game_on_shard(3)
    assert await store.schedule(game, 5_000) is None   # each call tells the game's time before
    assert await store.schedule(game, 7_000) == 5_000  # later: ignored
    assert await store.claim_due(3, 4_999, 100, 10) == []
    assert await store.schedule(game, 4_000) == 5_000  # earlier: taken
    assert await store.claim_due(3, 4_000, 100, 10) == [(game, 4_100)]
    assert await store.schedule(game, 9_000) == 4_100  # a claim's end
    assert await store.claim_due((3 + 1) % SHARDS, 10**12, 100, 10) == []  # shards are separate


async def test_a_commit_with_a_due_time_schedules_the_game_first(store: Store) -> None:
    game = game_on_shard(4)
    await store.create(game, b"s0", [b"e1"])
    done = await store.commit(Commit(game, 1, b"s1", [b"e2"], due_ms=6_000))
    assert (done.ok, done.version, done.due_before) == (True, 2, None)
    if isinstance(store.inner, MemoryStore) or redis_of(store) is not None:   # one process, one Redis
        assert done.due_atomic
    done = await store.commit(Commit(game, 2, b"s2", [b"e3"], due_ms=8_000))   # later: the time stays
    assert (done.ok, done.due_before) == (True, 6_000)
    lost = await store.commit(Commit(game, 1, b"stale", [b"x"], due_ms=5_000))   # a hint: written all the same
    assert (lost.ok, lost.version, lost.due_before) == (False, 3, 6_000)
    assert await store.claim_due(4, 5_000, 100, 10) == [(game, 5_100)]
    plain = await store.commit(Commit(game, 3, b"s3", [b"e4"]))   # no due time: the schedule untouched
    assert (plain.ok, plain.due_before) == (True, None)
    assert await store.next_due(4) == 5_100
    first = await store.commit(Commit(game, 4, b"s4", [b"e5"], request_id="r-due", retry=b"kept", due_ms=9_000))
    again = await store.commit(Commit(game, 4, b"s4", [b"e5"], request_id="r-due", retry=b"kept", due_ms=9_000))
    assert (first.ok, again.ok, again.replay, again.version, again.due_before) == (True, False, b"kept", 5, 5_100)
    assert await store.load(game) == Loaded(5, b"s4")
    with pytest.raises(ValueError, match="due_ms"):
        Commit(game, 4, b"s4", [b"e5"], due_ms=-1)


async def test_claims_are_leases_that_end(store: Store) -> None:
    first, second, third = (game_on_shard(5) for _ in range(3))
    for game, at in ((first, 100), (second, 200), (third, 300)):
        await store.schedule(game, at)
    assert await store.claim_due(5, 250, 1_000, 1) == [(first, 1_250)]   # earliest first, count bounds it
    assert await store.claim_due(5, 250, 1_000, 10) == [(second, 1_250)]
    assert await store.claim_due(5, 250, 1_000, 10) == []                 # leased: not due
    assert await store.claim_due(5, 300, 1_000, 10) == [(third, 1_300)]
    # the claimers died: each game is due again when its lease ends, with a new token
    assert sorted(await store.claim_due(5, 1_250, 500, 10)) == sorted([(first, 1_750), (second, 1_750)])
    assert await store.settle(first, 1_250, None) is False  # the old claim no longer holds
    assert await store.claim_due(5, 1_300, 500, 10) == [(third, 1_800)]


async def test_settle_reschedules_unless_scheduled_sooner_meanwhile(store: Store) -> None:
    game, other = game_on_shard(7), game_on_shard(7)
    await store.schedule(game, 1_000)
    await store.schedule(other, 1_000)
    claims = dict(await store.claim_due(7, 1_000, 30_000, 10))
    assert claims == {game: 31_000, other: 31_000}
    await store.schedule(other, 2_000)                          # a move meanwhile: due sooner
    assert await store.settle(game, claims[game], 60_000) is True
    assert await store.settle(other, claims[other], None) is False
    assert await store.claim_due(7, 2_000, 30_000, 10) == [(other, 32_000)]  # not lost
    assert await store.settle(other, 32_000, None) is True      # done: unscheduled
    assert await store.claim_due(7, 59_999, 30_000, 10) == []
    assert await store.claim_due(7, 60_000, 30_000, 10) == [(game, 90_000)]
    assert await store.settle(game, 90_000, None) is True
    assert await store.claim_due(7, 10**12, 1, 10) == []
    assert await store.settle(new_id(), 5, None) is False


async def test_a_time_scheduled_during_a_claim_is_kept_by_its_settle(store: Store) -> None:
    """A sweeper settles a game from the game as it read it; a commit during the claim may have
    asked for any time, even one after the claim's end (which the score does not take): the
    settle keeps the earlier of its own time and the times asked, and forgets them."""
    game, other = game_on_shard(9), game_on_shard(9)
    for each in (game, other):
        await store.schedule(each, 1_000)
    claims = dict(await store.claim_due(9, 1_000, 5_000, 10))
    assert claims == {game: 6_000, other: 6_000}
    assert await store.schedule(game, 60_000) == 6_000          # after the claim's end: kept aside
    assert await store.schedule(game, 45_000) == 6_000          # the earliest asked wins
    assert await store.settle(game, 6_000, None) is True        # the sweeper saw nothing due
    assert await store.next_due(9) == 6_000                     # other's claim; game at 45,000
    assert await store.settle(other, 6_000, 50_000) is True     # nothing asked: its own time
    assert await store.claim_due(9, 44_999, 5_000, 10) == []
    assert await store.claim_due(9, 45_000, 5_000, 10) == [(game, 50_000)]
    assert await store.settle(game, 50_000, 80_000) is True     # what was asked is forgotten
    assert await store.claim_due(9, 50_000, 1, 10) == [(other, 50_001)]
    assert await store.settle(other, 50_001, None) is True
    assert await store.claim_due(9, 79_999, 1, 10) == []
    # a time asked during a claim that lost to an earlier schedule is kept for the next claim
    assert await store.claim_due(9, 80_000, 5_000, 10) == [(game, 85_000)]
    await store.schedule(game, 99_000)                          # asked during the claim
    await store.schedule(game, 81_000)                          # earlier: the claim no longer holds
    assert await store.settle(game, 85_000, None) is False
    assert await store.claim_due(9, 81_000, 5_000, 10) == [(game, 86_000)]
    assert await store.settle(game, 86_000, None) is True       # nothing due then: 99,000 stays
    assert await store.claim_due(9, 98_999, 1, 10) == []
    assert await store.claim_due(9, 99_000, 1, 10) == [(game, 99_001)]
    assert await store.settle(game, 99_001, None) is True
    assert await store.next_due(9) is None


async def test_schedule_agrees_with_a_model_on_every_shard(store: Store) -> None:
    games = [game_on_shard(shard) for shard in range(SHARDS)]
    for i, game in enumerate(games):
        await store.schedule(game, 1_000 + i)
    for shard, game in enumerate(games):
        assert await store.claim_due(shard, 1_000 + shard - 1, 10, 5) == []
        assert await store.claim_due(shard, 1_000 + shard, 10, 5) == [(game, 1_010 + shard)]
        assert await store.settle(game, 1_010 + shard, 5_000) is True
    assert [await store.claim_due(shard, 5_000, 1, 5) for shard in range(SHARDS)] == \
        [[(game, 5_001)] for game in games]


async def test_the_index_pages_newest_first_with_ties_and_cursors(store: Store) -> None:
    owner = f"o-{uuid.uuid4().hex}"
    for created, game in ((100, "a"), (100, "b"), (200, "c"), (50, "d"), (100, "e")):
        await store.index_game(owner, game, created, [])
    assert await store.list_index(owner, [], None, 2) == ([(200, "c"), (100, "e")], (100, "e"))
    assert await store.list_index(owner, [], (100, "e"), 2) == ([(100, "b"), (100, "a")], (100, "a"))
    assert await store.list_index(owner, [], (100, "a"), 2) == ([(50, "d")], None)
    assert await store.list_index(owner, [], None, 5) == ([(200, "c"), (100, "e"), (100, "b"), (100, "a"),
                                                          (50, "d")], None)
    assert await store.list_index(owner, [], (50, "d"), 5) == ([], None)
    # a cursor whose game has left the index, or moved, still means a place in the order
    await store.prune_index(owner, ["e"])
    assert await store.list_index(owner, [], (100, "e"), 1) == ([(100, "b")], (100, "b"))
    assert await store.list_index(owner, [], (100, "c"), 2) == ([(100, "b"), (100, "a")], (100, "a"))
    assert await store.list_index(owner, [], (150, "zz"), 1) == ([(100, "b")], (100, "b"))
    assert await store.list_index(owner, [], (999, "a"), 1) == ([(200, "c")], (200, "c"))
    assert await store.list_index(owner, [], (200, "d"), 1) == ([(200, "c")], (200, "c"))
    assert await store.list_index(f"o-{uuid.uuid4().hex}", [], None, 5) == ([], None)


async def test_the_index_intersects_terms(store: Store) -> None:
    owner, other_owner = f"o-{uuid.uuid4().hex}", f"o-{uuid.uuid4().hex}"
    red, blue, alice, bob = "l:color=red", "l:color=blue", "p:user-42", "p:user-{7}\ttab"
    await store.index_game(owner, "g1", 10, [red, alice])
    await store.index_game(owner, "g2", 20, [red, bob, alice])
    await store.index_game(owner, "g3", 30, [blue, bob])
    await store.index_game(owner, "g4", 40, [red])
    await store.index_game(other_owner, "g5", 50, [red, alice])
    assert (await store.list_index(owner, [red], None, 10))[0] == [(40, "g4"), (20, "g2"), (10, "g1")]
    assert (await store.list_index(owner, [red, alice], None, 10))[0] == [(20, "g2"), (10, "g1")]
    assert (await store.list_index(owner, [alice, red, alice], None, 10))[0] == [(20, "g2"), (10, "g1")]
    assert (await store.list_index(owner, [red, bob], None, 10))[0] == [(20, "g2")]
    assert await store.list_index(owner, [red, "l:none"], None, 10) == ([], None)
    assert (await store.list_index(other_owner, [red], None, 10))[0] == [(50, "g5")]
    # indexing again replaces the game's terms
    await store.index_game(owner, "g2", 20, [blue])
    assert (await store.list_index(owner, [red], None, 10))[0] == [(40, "g4"), (10, "g1")]
    assert (await store.list_index(owner, [blue], None, 10))[0] == [(30, "g3"), (20, "g2")]
    assert (await store.list_index(owner, [bob], None, 10))[0] == [(30, "g3")]
    await store.prune_index(owner, ["g1"])  # its recorded terms go too
    assert (await store.list_index(owner, [alice], None, 10)) == ([], None)
    assert (await store.list_index(owner, [], None, 10))[0] == [(40, "g4"), (30, "g3"), (20, "g2")]
    assert set(await store.owners()) >= {owner, other_owner}


async def test_the_index_scan_is_bounded_and_returns_a_cursor(store: Store) -> None:
    owner = f"o-{uuid.uuid4().hex}"
    indexing = [store.index_game(owner, f"a{i:04d}", 10_000 + i, ["t:a"]) for i in range(1010)]
    indexing += [store.index_game(owner, f"b{i:04d}", 20_000 + i, ["t:b"]) for i in range(1011)]
    indexing.append(store.index_game(owner, "both", 5, ["t:a", "t:b"]))
    for first in range(0, len(indexing), 50):   # fewer at once than the pool's connections: no waiting
        await asyncio.gather(*indexing[first:first + 50])
    # t:a (1011) is walked: 1000 members without a match, then the rest
    assert await store.list_index(owner, ["t:b", "t:a"], None, 1) == ([], (10_010, "a0010"))
    assert await store.list_index(owner, ["t:b", "t:a"], (10_010, "a0010"), 1) == ([(5, "both")], None)
    page, cursor = await store.list_index(owner, ["t:a"], None, 200)  # bound 2000: the page fills
    assert len(page) == 200 and page[0] == (11_009, "a1009") and cursor == page[-1]


async def test_loads_reads_many_games_in_order_with_their_versions(store: Store) -> None:
    games = [new_id() for _ in range(5)]
    for i, game in enumerate(games[:3]):
        await store.create(game, f"s{i}".encode(), [b"e"])
    await commit(store, games[2], 1, b"s2b", b"a")
    assert await store.loads([games[3], games[0], games[2], games[4], games[1], games[0]]) == \
        [None, Loaded(1, b"s0"), Loaded(2, b"s2b"), None, Loaded(1, b"s1"), Loaded(1, b"s0")]
    assert await store.loads([]) == []
    with pytest.raises(ValueError):
        await store.loads(["a{b"])
    with pytest.raises(ValueError):
        await store.loads([new_id() for _ in range(1001)])


async def test_delete_removes_the_game_and_leaves_the_rest(store: Store) -> None:
    owner, game = f"o-{uuid.uuid4().hex}", new_id()
    await store.create(game, b"s1", [b"e1"], request_id="r", retry=b"x", events=events_of(1))
    await commit(store, game, 1, b"s2", b"a", hands=(b"h",), events=events_of(2))
    await store.index_game(owner, game, 10, ["t"])
    await store.publish(owner, game, events_of(1, 2), 100)
    await store.schedule(game, 500)
    assert await store.delete(game) is True
    assert await store.delete(game) is False
    assert await store.load(game) is None
    assert await store.log_after(game, 0) == [] and await store.hands(game) == []
    assert await store.outbox(game) == [] and await store.get_retry(game, "r") is None
    if (backend := redis_of(store)) is not None:
        assert await redis_ttls(backend, game) == {}
    assert (await store.list_index(owner, ["t"], None, 10))[0] == [(10, game)]  # a candidate still
    assert await store.publish(owner, game, events_of(2), 100) == 0
    assert await store.claim_due(shard_of(game), 500, 10, 10) == [(game, 510)]
    await store.create(game, b"again", [b"e"])  # the id is free again
    assert await store.outbox(game) == []


async def test_prune_and_sweep_remove_games_that_are_gone(store: Store) -> None:
    owner = f"o-{uuid.uuid4().hex}"
    games = [new_id() for _ in range(30)]
    for i, game in enumerate(games):
        await store.create(game, b"s", [b"e"])
        await store.index_game(owner, game, 1_000 + i, ["all:mine", f"n:{i % 3}"])
    gone = games[::2]
    for game in gone:
        await store.delete(game)
    listed, _ = await store.list_index(owner, ["n:0"], None, 100)
    loaded = await store.loads([game for _, game in listed])
    missing = [game for (_, game), found in zip(listed, loaded, strict=True) if found is None]
    assert missing == [g for i, g in reversed(list(enumerate(games))) if i % 6 == 0]
    assert await store.prune_index(owner, missing, {missing[0]: ["n:0", "l:unknown"]}) == len(missing)
    assert await store.prune_index(owner, missing) == 0
    assert (await store.list_index(owner, ["n:0"], None, 100))[0] == \
        [(1_000 + i, g) for i, g in reversed(list(enumerate(games))) if i % 6 == 3]
    cursor, passes = "", 0
    while True:
        cursor = await store.sweep_index(owner, cursor, 4)
        passes += 1
        if cursor == "" or passes >= 100:
            break
        validate_cursor(cursor)   # opaque, of the port's form
    assert cursor == ""
    alive = [(1_000 + i, g) for i, g in reversed(list(enumerate(games))) if i % 2]
    assert (await store.list_index(owner, [], None, 100)) == (alive, None)
    assert (await store.list_index(owner, ["all:mine"], None, 100)) == (alive, None)
    for n in range(3):
        assert (await store.list_index(owner, [f"n:{n}"], None, 100))[0] == \
            [(ms, g) for ms, g in alive if (ms - 1_000) % 3 == n]
    assert await store.sweep_index(f"o-{uuid.uuid4().hex}", "", 10) == ""
    if (backend := redis_of(store)) is not None:  # the recorded terms of pruned games are gone with them
        recorded = await backend.client.hkeys(backend.index_key(owner, "terms"))
        assert sorted(r.decode() for r in recorded) == sorted(g for _, g in alive)


async def test_the_index_counts_each_owners_games(store: Store) -> None:
    owner, other = f"o-{uuid.uuid4().hex}", f"o-{uuid.uuid4().hex}"
    assert await store.count_index(owner) == 0
    games = [new_id() for _ in range(5)]
    for i, game in enumerate(games):
        await store.create(game, b"s", [b"e"])
        await store.index_game(owner, game, 10 + i, ["t"])
    await store.index_game(owner, games[0], 99, [])   # indexed again: counted once
    await store.index_game(other, new_id(), 1, [])
    assert await store.count_index(owner) == 5 and await store.count_index(other) == 1
    await store.prune_index(owner, [games[1]])
    await store.delete(games[2])
    assert await store.count_index(owner) == 4   # a game that is gone counts until swept
    assert await store.sweep_index(owner, "", 100) == ""
    assert await store.count_index(owner) == 3
    with pytest.raises(ValueError):
        await store.count_index("a{b")


async def test_owners_are_kept(store: Store) -> None:
    assert await store.owners() == []
    await store.index_game("_open", new_id(), 1, [])
    await store.index_game("backend-1", new_id(), 1, ["p:x"])
    await store.index_game("backend-1", new_id(), 2, [])
    assert await store.owners() == ["_open", "backend-1"]


async def test_lifecycle_input_is_validated(store: Store) -> None:
    game = new_id()
    for owner in ("", "a{b", "a}b", "x" * 129, 7):
        with pytest.raises(ValueError):
            await store.publish(owner, game, events_of(1), 10)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            await store.index_game(owner, game, 1, [])  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            await store.read_events(owner, "", 1, 0)  # type: ignore[arg-type]
    calls = [
        lambda: store.publish("o", game, events_of(1), 0),
        lambda: store.publish("o", "a{b", events_of(1), 10),
        lambda: store.read_events("o", "abc", 1, 0),       # of the port's form, not a cursor it made: BadCursor
        lambda: store.read_events("o", "1-2-3", 1, 0),
        lambda: store.read_events("o", "a b", 1, 0),       # not of the port's form
        lambda: store.read_events("o", "x" * 65, 1, 0),
        lambda: store.read_events("o", 0, 1, 0),
        lambda: store.read_events("o", "", 0, 0),
        lambda: store.read_events("o", "", 1, -1),
        lambda: store.schedule(game, -1),
        lambda: store.schedule(game, True),
        lambda: store.schedule(game, 1.5),
        lambda: store.schedule("", 1),
        lambda: store.claim_due(SHARDS, 1, 1, 1),
        lambda: store.claim_due(-1, 1, 1, 1),
        lambda: store.claim_due(0, 1, 1, 0),
        lambda: store.claim_due(0, 2**53, 1, 1),
        lambda: store.settle(game, -5, None),
        lambda: store.settle(game, 5, -1),
        lambda: store.index_game("o", game, -1, []),
        lambda: store.index_game("o", game, 1, ["a\nb"]),
        lambda: store.index_game("o", game, 1, [""]),
        lambda: store.index_game("o", game, 1, ["x" * 301]),
        lambda: store.index_game("o", game, 1, "p:x"),
        lambda: store.index_game("o", game, 1, [f"t{i}" for i in range(65)]),
        lambda: store.list_index("o", [], (1, "a{b"), 1),
        lambda: store.list_index("o", [], (-1, "a"), 1),
        lambda: store.list_index("o", [], None, 0),
        lambda: store.prune_index("o", ["a}"]),
        lambda: store.sweep_index("o", -1, 10),
        lambda: store.sweep_index("o", "", 0),
        lambda: store.sweep_index("o", "not a cursor", 10),
        lambda: store.sweep_index("o", "zz-not-mine", 10),
        lambda: store.forget("o", ""),
        lambda: store.delete("a{b"),
        lambda: store.publish_outbox("o", "", 1),
    ]
    for call in calls:
        with pytest.raises(ValueError):
            await call()
    assert await store.owners() == []


def test_open_store_picks_the_implementation(redis_url: str,
                                             event_loop: asyncio.AbstractEventLoop) -> None:
    memory = open_store(None)
    assert isinstance(memory, CheckedStore) and isinstance(memory.inner, MemoryStore)
    made = open_store(redis_url, prefix="cardgame-test-unused")
    assert isinstance(made, CheckedStore) and isinstance(made.inner, RedisStore)
    assert checked(made) is made   # checked once, however often wrapped
    event_loop.run_until_complete(made.close())


class _Recording:
    """A back-end that records every call it gets (name and arguments) and answers None; its watch
    yields version 1."""

    def __init__(self) -> None:
        """Start with no calls."""
        self.calls: list[tuple[str, tuple[object, ...]]] = []

    def __getattr__(self, name: str):
        def watch(*args: object) -> AsyncIterator[int]:
            self.calls.append((name, args))

            async def versions() -> AsyncIterator[int]:
                yield 1

            return versions()

        async def call(*args: object, **kwargs: object) -> None:
            self.calls.append((name, args))

        return watch if name == "watch" else call


async def test_a_checked_store_rejects_a_bad_argument_before_any_backend_call() -> None:
    backend = _Recording()
    store = checked(cast(Store, backend))
    assert isinstance(store, Store)
    bad = [
        lambda: store.load("a{b"),                      # a game id with a brace
        lambda: store.create("a}b", b"s", [b"e"]),
        lambda: store.create("g", b"s", []),
        lambda: store.hands("", 0),
        lambda: store.loads(["ok", "a{b"]),
        lambda: store.claim_due(0, 1, 1, -1),           # a negative count
        lambda: store.claim_due(SHARDS, 1, 1, 1),
        lambda: store.read_events("o", "", -5, 0),
        lambda: store.read_events("o", "x 1", 5, 0),
        lambda: store.publish("o", "g", [b"2 {}", b"1 {}"], 10),
        lambda: store.publish("o{", "g", [b"1 {}"], 10),
        lambda: store.list_index("o", ["t"], (1, "a{b"), 1),
        lambda: store.take_token("b", 1, 0),
        lambda: store.publish_outbox("o", "g", -1),
        lambda: store.sweep_index("o{", "", 1),
        lambda: store.settle("g", 1, -1),
        lambda: store.schedule("g", True),
        lambda: store.prune_index("o", ["g"], {"g": ["a\nb"]}),
        lambda: store.get_retry("g", ""),
        lambda: store.commit("not a commit"),  # type: ignore[arg-type]
        lambda: anext(store.watch("a{b")),
    ]
    for call in bad:
        with pytest.raises(ValueError):
            await call()
    assert backend.calls == []
    # good arguments reach the back-end in the form the checks give them
    await store.index_game("o", "g", 5, ("t", "u", "t"))
    await store.publish("o", "g", (b"1 {}",), 10)
    assert await anext(store.watch("g")) == 1
    assert backend.calls == [("index_game", ("o", "g", 5, ["t", "u"])), ("publish", ("o", "g", [b"1 {}"], 10)),
                             ("watch", ("g",))]


GOOD: dict[str, object] = {   # a good value of every parameter of the port, by name
    "game_id": "g", "game_ids": ["g"], "state": b"s", "entries": [b"e"], "request_id": "r", "retry": b"x",
    "events": [b"1 {}"], "change": Commit("g", 1, b"s", [b"e"]), "start": 0, "limit": 1, "count": 1, "version": 0,
    "until": 1, "owner": "o", "max_len": 10, "after": "", "cursor": "", "block_ms": 0,
    "created_ms": 1, "terms": ["t"], "terms_of": {"g": ["t"]}, "before": None, "at_ms": 1, "shard": 0,
    "now_ms": 1, "lease_ms": 1, "claim": 1, "next_ms": 1, "sweeper": "s", "sweepers": ["s"], "ttl_ms": 1,
    "bucket": "b", "rate_per_s": 1.0, "burst": 1,
}
BAD: dict[str, list[object]] = {   # bad values of each, which the checker refuses
    "game_id": ["", "a{b", "x" * 257, 7], "game_ids": ["g", ["ok", "a}"], ["g"] * 1001], "state": ["s", None],
    "entries": [[], [b"e", "e"], b"e"], "request_id": ["", 7], "retry": ["x"],
    "events": [[b"2 {}", b"1 {}"], [b"x"], b"1 {}"], "change": ["not a commit"], "start": [True, "0"],
    "limit": [1.5, 2**53],
    "count": [0, 10_001, 1.0], "version": ["1", 2**53], "until": [-1], "owner": ["", "o{", "x" * 129],
    "max_len": [0], "after": ["a b", "x" * 65, "é", 0], "cursor": ["a b", "\n", -1], "block_ms": [-1],
    "created_ms": [-1, MAX_MS + 1], "terms": [["a\nb"], [""], "t"], "terms_of": [{"a{": []}, {"g": ["a\nb"]}, ["g"]],
    "before": [(1, "a{b"), (-1, "g"), (1,)], "at_ms": [True, -1, 1.5], "shard": [SHARDS, -1], "now_ms": [-1],
    "lease_ms": [-1], "claim": [-5], "next_ms": [-1], "sweeper": ["", "a b", "a{"], "sweepers": ["s", ["a b"]],
    "ttl_ms": [0, 86_400_001], "bucket": ["", "b{"], "rate_per_s": [0, -1.0, float("nan"), True], "burst": [0],
}


def test_the_checks_cover_every_parameter_of_the_port() -> None:
    assert set(GOOD) == set(BAD) == set(CHECKS)   # a parameter added to the port is added here too


async def test_the_checker_refuses_every_bad_argument_of_every_method_before_the_backend() -> None:
    backend = _Recording()
    store = checked(cast(Store, backend))
    for name in PORT_METHODS:
        method = getattr(Store, name)
        parameters = list(inspect.signature(method).parameters)[1:]
        keyword = {p.name for p in inspect.signature(method).parameters.values() if p.kind is p.KEYWORD_ONLY}
        for parameter in parameters:
            for bad in BAD[parameter]:
                args = [bad if p == parameter else GOOD[p] for p in parameters if p not in keyword]
                kwargs = {p: bad if p == parameter else GOOD[p] for p in parameters if p in keyword}
                with pytest.raises(ValueError):
                    called = getattr(store, name)(*args, **kwargs)
                    if inspect.isawaitable(called):
                        await called
                assert backend.calls == [], (name, parameter, bad)
        args = [GOOD[p] for p in parameters if p not in keyword]   # good arguments pass
        called = getattr(store, name)(*args, **{p: GOOD[p] for p in keyword})
        if inspect.isawaitable(called):
            await called
        assert [call for call, _ in backend.calls] == [name]
        backend.calls.clear()
    for joint in (lambda: store.claim_due(0, MAX_MS, 1, 1), lambda: store.lease_shards("s", MAX_MS, 1)):
        with pytest.raises(ValueError):   # a lease's end is a time too
            await joint()
    assert backend.calls == []


def test_a_port_method_without_a_check_for_a_parameter_fails_when_the_wrapper_is_built() -> None:
    class Wider(Protocol):
        async def paint(self, game_id: str, colour: str) -> None: ...

        async def page(self, game_id: str, count: int = 0) -> None: ...

    with pytest.raises(TypeError, match="colour.*CHECKS"):
        _checking("paint", Wider.paint)
    with pytest.raises(TypeError, match="default of 'count'"):   # a default must pass its own check
        _checking("page", Wider.page)


COMMIT_OPS = st.lists(
    st.tuples(st.integers(0, 2), st.integers(1, 4), st.sampled_from([None, "a", "b", "c"]),
              st.booleans()),
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(ops=COMMIT_OPS)
def test_memory_and_redis_agree_on_any_commit_sequence(
        ops: list[tuple[int, int, str | None, bool]], redis_url: str, redis_run_prefix: str,
        event_loop: asyncio.AbstractEventLoop) -> None:
    async def run() -> None:
        memory = checked(MemoryStore(**TTLS))
        redis_store = checked(RedisStore(redis_url, prefix=redis_run_prefix, **TTLS))
        game = new_id()
        try:
            for made in (memory, redis_store):
                await made.create(game, b"s0", [b"e1"], request_id="c", retry=b"created")
            version = 1
            for step, (lag, count, request_id, finished) in enumerate(ops):
                events = [f"e{step}.{i}".encode() for i in range(count)]
                args = (game, max(version - lag, 1), f"s{step}".encode(), events, request_id,
                        f"r{step}".encode(), finished)
                expected = await memory.commit(Commit(*args))
                assert await redis_store.commit(Commit(*args)) == expected
                version = expected.version
            assert await redis_store.load(game) == await memory.load(game)
            assert await redis_store.log_after(game, 0) == await memory.log_after(game, 0)
            for request_id in ("a", "b", "c", "d"):
                assert (await redis_store.get_retry(game, request_id)
                        == await memory.get_retry(game, request_id))
        finally:
            await memory.close()
            await redis_store.close()

    event_loop.run_until_complete(run())


INDEX_GAMES = st.lists(
    st.tuples(st.text("abé", min_size=1, max_size=3), st.integers(0, 6),
              st.sets(st.sampled_from(["l:a", "l:b", "p:{x}"]), max_size=3)),
    max_size=14, unique_by=lambda game: game[0],
)


@settings(max_examples=60, deadline=None)
@given(games=INDEX_GAMES, dropped=st.sets(st.integers(0, 13), max_size=4),
       query=st.lists(st.sampled_from(["l:a", "l:b", "p:{x}"]), max_size=3), count=st.integers(1, 4))
def test_list_index_pages_agree_with_a_model(
        games: list[tuple[str, int, set[str]]], dropped: set[int], query: list[str], count: int,
        redis_url: str, redis_run_prefix: str, event_loop: asyncio.AbstractEventLoop) -> None:
    owner = f"o-{uuid.uuid4().hex}"
    kept = [game for i, game in enumerate(games) if i not in dropped]
    model = sorted(((ms, game) for game, ms, terms in kept if set(query) <= terms), reverse=True)

    async def pages(made: Store) -> list[tuple[list[tuple[int, str]], tuple[int, str] | None]]:
        for game, ms, terms in games:
            await made.index_game(owner, game, ms, sorted(terms))
        for i in sorted(dropped):
            if i < len(games):
                await made.prune_index(owner, [games[i][0]])
        got, cursor = [], None
        for _ in range(len(games) + 2):
            page, cursor = await made.list_index(owner, query, cursor, count)
            got.append((page, cursor))
            assert len(page) <= count
            if cursor is None:
                break
        assert cursor is None
        return got

    async def run() -> None:
        memory = checked(MemoryStore(clock=FakeClock(), **TTLS))
        redis_store = checked(RedisStore(redis_url, prefix=redis_run_prefix, **TTLS))
        try:
            from_memory = await pages(memory)
            assert [item for page, _ in from_memory for item in page] == model
            assert await pages(redis_store) == from_memory
        finally:
            await memory.close()
            await redis_store.close()

    event_loop.run_until_complete(run())


SCHEDULE_OPS = st.lists(
    st.one_of(st.tuples(st.just("schedule"), st.integers(0, 3), st.integers(0, 50)),
              st.tuples(st.just("claim"), st.integers(0, 3), st.integers(0, 50)),
              st.tuples(st.just("settle"), st.integers(0, 3), st.one_of(st.none(), st.integers(0, 50)))),
    max_size=20,
)


@settings(max_examples=30, deadline=None)
@given(ops=SCHEDULE_OPS)
def test_memory_and_redis_agree_on_any_schedule_sequence(
        ops: list[tuple[str, int, int | None]], redis_url: str, redis_run_prefix: str,
        event_loop: asyncio.AbstractEventLoop) -> None:
    games = [game_on_shard(2) for _ in range(4)]

    async def run(made: Store) -> list[object]:
        seen: list[object] = []
        tokens = dict.fromkeys(games, 0)
        for kind, which, value in ops:
            game = games[which]
            if kind == "schedule":
                assert value is not None
                seen.append(await made.schedule(game, value))
            elif kind == "claim":
                assert value is not None
                claimed = await made.claim_due(2, value, 7, 1 + which)
                tokens.update(claimed)
                seen.append(claimed)
            else:
                seen.append(await made.settle(game, tokens[game], value))
        seen.append(await made.claim_due(2, 10**6, 1, 10))
        return seen

    async def both() -> None:
        memory = checked(MemoryStore(clock=FakeClock(), **TTLS))
        redis_store = checked(RedisStore(redis_url, prefix=f"{redis_run_prefix}-{uuid.uuid4().hex[:8]}", **TTLS))
        try:
            assert await run(redis_store) == await run(memory)
        finally:
            await memory.close()
            await redis_store.close()

    event_loop.run_until_complete(both())


# --- Redis only -------------------------------------------------------------------------


async def test_redis_key_layout(redis_pair: tuple[RedisStore, RedisStore]) -> None:
    store = redis_pair[0]
    game = new_id()
    await store.create(game, b"s1", [b"e1"])
    await commit(store, game, 1, b"s2", b"a", request_id="r1", retry=b"resp")
    client = store.client
    tag = "{" + game + "}"
    assert all(tag in key for key in (store.key(game, p) for p in ("state", "log", "hands", "req")))
    assert await client.type(store.key(game, "state")) == b"hash"
    assert await client.hgetall(store.key(game, "state")) == {b"v": b"2", b"s": b"s2"}
    assert await client.lrange(store.key(game, "log"), 0, -1) == [b"e1", b"a"]
    pairs = await client.lrange(store.key(game, "req"), 0, -1)
    assert pairs[0] == b"rr1" and pairs[1].startswith(b"d") and pairs[1].endswith(b" resp")


async def test_redis_watch_sees_commits_from_another_process(
        redis_pair: tuple[RedisStore, RedisStore]) -> None:
    watching, writing = redis_pair
    game = new_id()
    watch = watching.watch(game)
    try:
        assert await next_version(watch) == 0
        await writing.create(game, b"s1", [b"e1"])
        assert await next_version(watch) == 1
        await commit(writing, game, 1, b"s2", b"a", b"b")
        assert await next_version(watch) == 3
        await commit(watching, game, 3, b"s3", b"c")
        assert await next_version(watch) == 4
    finally:
        await watch.aclose()


async def test_redis_watch_unsubscribes_when_closed(
        redis_pair: tuple[RedisStore, RedisStore]) -> None:
    store = redis_pair[0]
    game = new_id()
    channel = store.key(game, "changes")
    watches = [store.watch(game) for _ in range(3)]
    for watch in watches:
        assert await next_version(watch) == 0
    assert dict(await store.client.pubsub_numsub(channel)) == {channel.encode(): 1}
    for watch in watches:
        await watch.aclose()
    deadline = time.monotonic() + WAIT_S
    while dict(await store.client.pubsub_numsub(channel))[channel.encode()] != 0:
        assert time.monotonic() < deadline, "channel still subscribed after every watch closed"
        await asyncio.sleep(0.02)


async def test_redis_warns_of_a_maxmemory_policy_that_evicts_games(private_redis, redis_prefix: str) -> None:
    store = RedisStore(private_redis.url, prefix=redis_prefix, **TTLS)
    try:
        await store.client.config_set("maxmemory-policy", "noeviction")
        assert await store.configuration_warnings() == []
        await store.client.config_set("maxmemory-policy", "allkeys-lru")
        warning, = await store.configuration_warnings()
        assert "maxmemory-policy is 'allkeys-lru'" in warning
        assert "run Redis with maxmemory-policy noeviction" in warning
    finally:
        await store.close()


async def test_redis_event_cursors_stay_its_stream_ids(redis_pair: tuple[RedisStore, RedisStore]) -> None:
    """The cursors WatchEvents clients kept (Event.id) before cursors were opaque still resume."""
    store, _ = redis_pair
    owner, game = f"o-{uuid.uuid4().hex}", new_id()
    await store.publish(owner, game, events_of(1, 2, 3), 100)
    read = await store.read_events(owner, "", 10, 0)
    ms, n = read[0][0].split("-")
    assert ms.isdigit() and n.isdigit()
    assert await store.read_events(owner, read[0][0], 10, 0) == read[1:]
    assert await store.read_events(owner, "0-0", 10, 0) == read
    for malformed in ("0", "1-2-3", "18446744073709551616-0", "e1"):
        with pytest.raises(BadCursor):
            await store.read_events(owner, malformed, 10, 0)


async def test_redis_down_fails_fast_then_recovers(private_redis, redis_prefix: str) -> None:
    store = RedisStore(private_redis.url, prefix=redis_prefix, **TTLS)
    try:
        game = new_id()
        await store.create(game, b"s1", [b"e1"])
        private_redis.stop()
        calls = {
            "ping": store.ping(),
            "load": store.load(game),
            "commit": commit(store, game, 1, b"s2", b"a", request_id="r1"),
            "create": store.create(new_id(), b"s", [b"e"]),
            "get_retry": store.get_retry(game, "r1"),
            "log_after": store.log_after(game, 0),
            "watch": anext(store.watch(game)),
        }
        for name, call in calls.items():
            started = time.monotonic()
            with pytest.raises(StoreUnavailable):
                await call
            assert time.monotonic() - started < 3.0, f"{name} took too long to fail"
        private_redis.start()
        await store.ping()
        assert await store.load(game) is None  # a non-persistent Redis lost everything
        await store.create(game, b"s1", [b"e1"])
        assert await commit(store, game, 1, b"s2", b"a") == Committed(True, 2, None)
    finally:
        await store.close()


async def test_redis_watch_survives_a_restart(private_redis, redis_prefix: str) -> None:
    watching = RedisStore(private_redis.url, prefix=redis_prefix, **TTLS)
    writing = RedisStore(private_redis.url, prefix=redis_prefix, **TTLS)
    game = new_id()
    watch = watching.watch(game)
    try:
        assert await next_version(watch) == 0
        private_redis.stop()
        await asyncio.sleep(0.3)  # the watch connection notices and starts reconnecting
        private_redis.start()
        await writing.create(game, b"s1", [b"e1"])
        assert await asyncio.wait_for(anext(watch), 10) == 1
        await commit(writing, game, 1, b"s2", b"a")
        assert await next_version(watch) == 2
    finally:
        await watch.aclose()
        await watching.close()
        await writing.close()


async def test_redis_hung_server_times_out_and_watch_recovers(private_redis,
                                                             redis_prefix: str) -> None:
    options = {"socket_timeout_s": 0.5, "liveness_s": 0.3}
    watching = RedisStore(private_redis.url, prefix=redis_prefix, **TTLS, **options)
    writing = RedisStore(private_redis.url, prefix=redis_prefix, **TTLS, **options)
    game = new_id()
    await writing.create(game, b"s1", [b"e1"])
    watch = watching.watch(game)
    try:
        assert await next_version(watch) == 1
        private_redis.pause()
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await writing.load(game)
        assert time.monotonic() - started < 2.0
        await asyncio.sleep(1.0)  # long enough for the watch to find its connection silent
        private_redis.resume()
        assert await commit(writing, game, 1, b"s2", b"a") == Committed(True, 2, None)
        assert await next_version(watch) == 2
    finally:
        private_redis.resume()
        await watch.aclose()
        await watching.close()
        await writing.close()


async def test_redis_pool_stays_bounded_under_a_burst(redis_url: str, redis_prefix: str) -> None:
    store = RedisStore(redis_url, prefix=redis_prefix, max_connections=3, pool_wait_s=10, **TTLS)   # slow CI
    try:
        game = new_id()
        await store.create(game, b"s1", [b"e1"])
        loaded = await asyncio.gather(*(store.load(game) for _ in range(200)))
        assert all(item == Loaded(1, b"s1") for item in loaded)
        pool = store.client.connection_pool
        made = len(pool._available_connections) + len(pool._in_use_connections)   # redis-py keeps no public count
        assert 1 <= made <= 3   # the whole burst went through at most 3 connections
    finally:
        await store.close()


async def test_redis_lifecycle_key_layout(redis_pair: tuple[RedisStore, RedisStore]) -> None:
    store = redis_pair[0]
    client, prefix = store.client, store._prefix
    owner, game = "backend-1", new_id()
    await store.create(game, b"s1", [b"e1"], events=events_of(1))
    await commit(store, game, 1, b"s2", b"a", finished=True, events=events_of(2))
    assert await client.type(store.key(game, "outbox")) == b"list"
    ttls = await redis_ttls(store, game)
    assert set(ttls) == {"state", "log", "outbox"} and all(95_000 < t <= 100_000 for t in ttls.values()), ttls
    await commit(store, game, 2, b"s3", b"b")  # unfinished, no events: the outbox TTL follows the game's
    assert 990_000 < (await redis_ttls(store, game))["outbox"] <= 1_000_000
    await store.publish(owner, game, events_of(1, 2), 100)
    stream = f"{prefix}:events:{{{owner}}}"
    assert store.events_key(owner) == stream
    assert await client.type(stream) == b"stream" and await client.pttl(stream) == -1  # bounded by MAXLEN
    assert await client.hgetall(stream + ":seq") == {game.encode(): b"2"}
    assert 30 * 86_400_000 - 60_000 < await client.pttl(stream + ":seq") <= 30 * 86_400_000
    await client.pexpire(stream + ":seq", 5_000)
    await store.publish(owner, new_id(), events_of(1), 100)  # every publish refreshes it
    assert await client.pttl(stream + ":seq") > 86_400_000
    await store.forget(owner, game)
    assert game.encode() not in await client.hkeys(stream + ":seq")
    await store.schedule(game, 1234)
    due = f"{prefix}:due:{{{shard_of(game)}}}"
    assert await client.zscore(due, game) == 1234.0
    await store.index_game(owner, game, 99, ["l:color=red", "p:user-42"])
    assert await client.zscore(f"{prefix}:idx:{{{owner}}}:all", game) == 99.0
    assert await client.zscore(f"{prefix}:idx:{{{owner}}}:t:l:color=red", game) == 99.0
    assert await client.hget(f"{prefix}:idx:{{{owner}}}:terms", game) == b"l:color=red\np:user-42"
    assert await client.smembers(f"{prefix}:owners") == {owner.encode()}
    await store.prune_index(owner, [game])
    assert [key async for key in client.scan_iter(match=f"{prefix}:idx:*")] == []


async def test_redis_a_read_may_block_longer_than_the_socket_timeout(redis_url: str, redis_prefix: str) -> None:
    store = RedisStore(redis_url, prefix=redis_prefix, socket_timeout_s=0.4, **TTLS)
    try:
        started = time.monotonic()
        assert await store.read_events("o", "", 10, 900) == []
        assert 0.85 < time.monotonic() - started < 2.0
        reader = asyncio.ensure_future(store.read_events("o", "", 10, 3_000))
        await asyncio.sleep(0.6)
        await store.publish("o", "g", events_of(1), 10)
        assert [event for _, _, event in await asyncio.wait_for(reader, WAIT_S)] == events_of(1)
    finally:
        await store.close()


class _BrokenClient:
    """A client whose every command fails as redis-py's cluster code has failed mid-topology-change."""

    connection_pool = None

    def __getattr__(self, name: str):
        async def fail(*args: object, **kwargs: object) -> None:
            raise IndexError("list index out of range")

        return fail

    def register_script(self, source: str) -> None:
        raise AssertionError("scripts are run by the store itself")


async def test_any_failure_of_the_redis_client_is_store_unavailable() -> None:
    store = RedisStore(_BrokenClient())  # type: ignore[arg-type]
    game = new_id()
    for call in (store.load(game), store.read_version(game), store.create(game, b"s", [b"e"]),
                 store.commit(Commit(game, 1, b"s", [b"e"], None, None, False)), store.take_token("b", 1, 1),
                 store.outbox(game), store.trim_outbox(game, 1), store.publish("o", game, events_of(1), 9),
                 store.publish_outbox("o", game, 9),
                 store.read_events("o", "", 1, 0), store.read_events("o", "", 1, 50), store.forget("o", game),
                 store.stream_end("o"), store.next_due(0), store.lease_shards("s", 1, 1), store.release_shards("s"),
                 store.schedule(game, 1), store.claim_due(0, 1, 1, 1), store.settle(game, 1, None),
                 store.index_game("o", game, 1, ["t"]),
                 store.list_index("o", ["t"], (1, game), 1), store.loads([game]), store.prune_index("o", [game]),
                 store.sweep_index("o", "", 1), store.owners(), store.delete(game)):
        with pytest.raises(StoreUnavailable, match="IndexError"):
            await call
