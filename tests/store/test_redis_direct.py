"""The Redis store's direct commands (service/store/redis/direct.py): the RESP they pack, and
what a pooled connection is left in after a reply, an error reply, a lost script and a cancel."""

from __future__ import annotations

import asyncio

import hiredis
import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.port import Commit
from service.store.redis.connection import connect
from service.store.redis.direct import DirectCommands, pack
from service.store.redis.store import RedisStore

ARGS = st.lists(st.one_of(st.binary(max_size=40), st.text(max_size=20), st.integers(-(2**70), 2**70)),
                min_size=1, max_size=12)


def _as_bytes(arg: bytes | str | int) -> bytes:
    return arg if isinstance(arg, bytes) else arg.encode() if isinstance(arg, str) else b"%d" % arg


@given(ARGS)
def test_pack_writes_the_arguments_as_one_resp_array(args: list[bytes | str | int]) -> None:
    reader = hiredis.Reader()
    reader.feed(pack(args))
    assert reader.gets() == [_as_bytes(arg) for arg in args]
    assert reader.gets() is False   # nothing after the array


async def test_replies_errors_and_cancels_leave_the_one_connection_usable(redis_url: str, redis_prefix: str) -> None:
    client = connect(redis_url, max_connections=1, pool_wait_s=5)
    direct = DirectCommands(client)
    key = f"{redis_prefix}:direct"
    try:
        assert await direct("SET", key, b"\x00\r\nvalue") == b"OK"
        assert await direct("HMGET", f"{key}:none", "v", "s") == [None, None]
        with pytest.raises(ResponseError, match="WRONGTYPE"):
            await direct("HGET", key, "v")
        assert await direct("GET", key) == b"\x00\r\nvalue"   # the error reply was read whole
        waiting = asyncio.ensure_future(direct("BLPOP", f"{key}:list", 5))
        await asyncio.sleep(0.2)
        waiting.cancel()   # its reply would come later: the connection is dropped, not reused
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await direct("RPUSH", f"{key}:list", b"late")
        assert await direct("LRANGE", f"{key}:list", 0, -1) == [b"late"]   # nobody else's reply
        assert await direct("GET", key) == b"\x00\r\nvalue"
        await direct("DEL", key, f"{key}:list")
    finally:
        await client.aclose()


async def test_a_script_the_server_lost_is_sent_whole(redis_url: str, redis_prefix: str) -> None:
    store = RedisStore(redis_url, prefix=redis_prefix)
    try:
        await store.create("direct-1", b"s0", [b"e1"])
        await store.client.script_flush()   # as a restarted or promoted server has no scripts
        committed = await store.commit(Commit("direct-1", 1, b"s1", [b"e2"]))
        assert committed.ok and committed.version == 2
        loaded = await store.load("direct-1")
        assert loaded is not None and (loaded.version, loaded.state) == (2, b"s1")
    finally:
        await store.delete("direct-1")
        await store.close()


async def test_kept_connections_stay_in_step_and_within_a_quarter_of_the_pool(redis_url: str,
                                                                              redis_prefix: str) -> None:
    client = connect(redis_url, max_connections=8, pool_wait_s=5)
    direct = DirectCommands(client)
    pool = client.connection_pool
    key = f"{redis_prefix}:kept"
    try:
        replies = await asyncio.gather(*(direct("INCR", key) for _ in range(40)))   # more than the pool at once
        assert sorted(replies) == list(range(1, 41))
        assert len(pool._in_use_connections) <= 2   # a quarter of 8 kept; the rest back in the pool
        assert await client.get(key) == b"40"      # the client's own commands find the pool free
        with pytest.raises(ResponseError, match="WRONGTYPE"):
            await direct("LPUSH", key, b"x")
        assert await direct("GET", key) == b"40"   # a kept connection after an error reply: in step
        for _ in range(3):   # cancel while a kept connection waits for a reply that comes later
            waiting = asyncio.ensure_future(direct("BLPOP", f"{key}:list", 5))
            await asyncio.sleep(0.1)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            await direct("RPUSH", f"{key}:list", b"late")
            assert await direct("LPOP", f"{key}:list") == b"late"   # nobody else's reply
        assert await asyncio.gather(*(direct("GET", key) for _ in range(10))) == [b"40"] * 10
        assert len(pool._in_use_connections) <= 2
        await direct("DEL", key, f"{key}:list")
    finally:
        await client.aclose()


async def test_a_hung_server_times_a_command_out_and_the_connection_is_replaced(private_redis) -> None:
    """The pool's socket timeout bounds each direct command, write and reply together; the timed-out
    connection is dropped, and once the server answers again commands go through on a fresh one
    with the pool's timeout back on every connection the pool holds."""
    client = connect(private_redis.url, max_connections=8, pool_wait_s=5, socket_timeout_s=0.5)
    direct = DirectCommands(client)
    pool = client.connection_pool
    try:
        assert await direct("SET", "hung", b"1") == b"OK"
        private_redis.pause()
        started = asyncio.get_running_loop().time()
        with pytest.raises(RedisTimeoutError, match="of GET"):
            await direct("GET", "hung")
        assert asyncio.get_running_loop().time() - started < 2.0
        private_redis.resume()
        assert await direct("GET", "hung") == b"1"
        assert all(c.socket_timeout == 0.5 for c in pool._available_connections)
        assert await client.get("hung") == b"1"   # the client's own commands, on the pool's connections
    finally:
        private_redis.resume()
        await client.aclose()


async def test_after_a_redis_restart_reads_find_a_live_connection_and_writes_are_not_sent_twice(private_redis) -> None:
    """Kept connections the restarted server closed: a read on one is sent again on a connection
    from the pool (which reconnects), so no read fails; a write on one fails (it may not be sent
    twice) and its connection is replaced."""
    client = connect(private_redis.url, max_connections=8, pool_wait_s=5)
    direct = DirectCommands(client)
    try:
        await direct("HSET", "game", "v", b"1")
        await asyncio.gather(*(direct("HMGET", "game", "v") for _ in range(6)))   # two connections kept
        assert len(direct._idle) == 2
        private_redis.stop()
        private_redis.start()
        with pytest.raises(RedisConnectionError):   # a write on a connection the server closed
            await direct("HSET", "game", "v", b"2")
        assert direct._idle == []   # the other kept one went back to the pool with it, to be checked
        assert await asyncio.gather(*(direct("HMGET", "game", "v") for _ in range(4))) == [[None]] * 4
        assert await direct("HSET", "game", "v", b"3") == 1
        await asyncio.gather(*(direct("HMGET", "game", "v") for _ in range(6)))   # two kept again
        private_redis.stop()
        private_redis.start()
        assert await direct("HMGET", "game", "v") == [None]   # a read on a closed one: sent again, fresh
        assert await direct("HSET", "game", "v", b"4") == 1   # and the other closed one was given back
    finally:
        await client.aclose()
