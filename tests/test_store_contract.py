"""One contract suite for every Store: MemoryStore and RedisStore must behave the same.

Redis-only tests at the end cover what only Redis has: two server processes sharing it, the
key layout, and Redis going away and coming back.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.store import Committed, GameExists, Loaded, Store, StoreUnavailable, open_store
from service.store_memory import MemoryStore
from service.store_redis import RedisStore

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


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def store(request: pytest.FixtureRequest, clock: FakeClock,
          event_loop: asyncio.AbstractEventLoop) -> Iterator[Store]:
    """Each store implementation, with short TTLs and retry records for 10 request ids."""
    if request.param == "memory":
        made: Store = MemoryStore(clock=clock, **TTLS)
    else:
        made = RedisStore(request.getfixturevalue("redis_url"),
                          prefix=request.getfixturevalue("redis_prefix"), **TTLS)
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


def new_id() -> str:
    """Return a fresh game id."""
    return f"g-{uuid.uuid4().hex}"


async def commit(store: Store, game_id: str, expected: int, state: bytes, *events: bytes,
                 request_id: str | None = None, retry: bytes | None = None,
                 finished: bool = False, hands: tuple[bytes, ...] = ()) -> Committed:
    """Call store.commit with defaults for the optional parts."""
    return await store.commit(game_id, expected, state, list(events), request_id, retry,
                              finished, hands)


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
    if isinstance(store, RedisStore):  # the finished TTL was not applied either
        assert (await redis_ttls(store, game))["state"] > 900_000


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
    if isinstance(store, RedisStore):
        ttls = await redis_ttls(store, game)
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
    if isinstance(store, RedisStore):
        ttls = await redis_ttls(store, game)
        assert all(990_000 < ttl <= 1_000_000 for ttl in ttls.values()), ttls
        for part in ("state", "log", "req"):
            await store.client.pexpire(store.key(game, part), 5_000)
        await commit(store, game, 1, b"s2", b"a")
        ttls = await redis_ttls(store, game)
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
    if isinstance(store, RedisStore):
        ttl = await store.client.pttl(f"{store._prefix}:ratelimit:{{{bucket}}}")
        assert 3_000_000 < ttl <= 3_001_000  # gone once it would be full again


async def test_a_token_bucket_refills_at_its_rate(store: Store, clock: FakeClock) -> None:
    bucket = new_id()
    assert await store.take_token(bucket, 20, 2) == 0.0 and await store.take_token(bucket, 20, 2) == 0.0
    wait = await store.take_token(bucket, 20, 2)
    assert 0 < wait <= 0.05
    clock.advance(0.06)
    if isinstance(store, RedisStore):
        await asyncio.sleep(0.06)
    assert await store.take_token(bucket, 20, 2) == 0.0


def test_open_store_picks_the_implementation(redis_url: str,
                                             event_loop: asyncio.AbstractEventLoop) -> None:
    assert isinstance(open_store(None), MemoryStore)
    made = open_store(redis_url, prefix="cardgame-test-unused")
    assert isinstance(made, RedisStore)
    event_loop.run_until_complete(made.close())


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
        memory = MemoryStore(**TTLS)
        redis_store = RedisStore(redis_url, prefix=redis_run_prefix, **TTLS)
        game = new_id()
        try:
            for made in (memory, redis_store):
                await made.create(game, b"s0", [b"e1"], request_id="c", retry=b"created")
            version = 1
            for step, (lag, count, request_id, finished) in enumerate(ops):
                events = [f"e{step}.{i}".encode() for i in range(count)]
                args = (game, max(version - lag, 1), f"s{step}".encode(), events, request_id,
                        f"r{step}".encode(), finished)
                expected = await memory.commit(*args)
                assert await redis_store.commit(*args) == expected
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
    store = RedisStore(redis_url, prefix=redis_prefix, max_connections=3, **TTLS)
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
    for call in (store.load(new_id()), store.version(new_id()), store.create(new_id(), b"s", [b"e"]),
                 store.commit(new_id(), 1, b"s", [b"e"], None, None, False), store.take_token("b", 1, 1)):
        with pytest.raises(StoreUnavailable, match="IndexError"):
            await call
