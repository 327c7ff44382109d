"""The Redis store's direct commands (service/store/redis/direct.py): the RESP they pack, and
what a pooled connection is left in after a reply, an error reply, a lost script and a cancel."""

from __future__ import annotations

import asyncio

import hiredis
import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.exceptions import ResponseError

from service.store.port import Commit
from service.store.redis.connection import connect
from service.store.redis.direct import DirectCommands, pack
from service.store.redis.store import RedisStore

ARGS = st.lists(st.one_of(st.binary(max_size=40), st.text(max_size=20), st.integers(-(2**63), 2**63 - 1)),
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
