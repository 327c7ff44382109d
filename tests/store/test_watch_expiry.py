"""A watched game whose keys expire in Redis ends its WatchGame streams with NOT_FOUND promptly,
as a deletion does: no pub/sub message tells an expiry (keyspace notifications are off), so the
Redis store's watch reads on its own whether the watched games still exist
(``service.store.redis.presence.Presence``) and tells their watchers version 0."""

from __future__ import annotations

import asyncio
import contextlib
import time

import grpc
import pytest
import redis

from cardgame.v1 import game_service_pb2 as pb
from service.store.redis.store import RedisStore
from tests.support.players import create

GONE_WITHIN_S = 5.0   # a functional bound: a game's disappearance reaches its streams within it
EXPIRE_MS = 100


def _expire(client: redis.Redis, prefix: str, game_id: str) -> float:
    """PEXPIRE every key of the game's hash tag to EXPIRE_MS; when they are gone (monotonic)."""
    keys = client.keys(f"{prefix}:{{{game_id}}}:*")
    assert keys, "the game has no keys"
    for key in keys:
        assert client.pexpire(key, EXPIRE_MS)
    return time.monotonic() + EXPIRE_MS / 1000


def test_a_watched_game_that_expires_ends_the_stream_with_not_found_promptly(stub, redis_url, module_prefix):
    client = redis.Redis.from_url(redis_url)
    try:
        game_id = create(stub, "spades", first_dealer=0).game_id
        stream = stub.WatchGame(pb.WatchGameRequest(game_id=game_id), timeout=GONE_WITHIN_S + 10)
        assert next(stream).view.game_id == game_id
        gone = _expire(client, module_prefix, game_id)
        with pytest.raises(grpc.RpcError) as ended:
            next(stream)
        took = time.monotonic() - gone
        assert ended.value.code() == grpc.StatusCode.NOT_FOUND, ended.value
        assert took < GONE_WITHIN_S, f"the stream ended {took:.1f} s after the game expired"
        assert not client.keys(f"{module_prefix}:{{{game_id}}}:*")
    finally:
        client.close()


async def test_the_redis_watch_tells_an_expired_game_as_version_0(redis_url, redis_prefix):
    store = RedisStore(redis_url, prefix=redis_prefix)
    client = redis.Redis.from_url(redis_url)
    try:
        await store.create("expiring", b"state", [b"e1"])
        other = "staying"
        await store.create(other, b"state", [b"e1"])
        watch, kept = store.watch("expiring"), store.watch(other)
        assert await anext(watch) == 1 and await anext(kept) == 1
        gone = _expire(client, redis_prefix, "expiring")
        assert await asyncio.wait_for(anext(watch), GONE_WITHIN_S) == 0
        assert time.monotonic() - gone < GONE_WITHIN_S
        pending = asyncio.ensure_future(anext(kept))
        done, _ = await asyncio.wait({pending}, timeout=2.5)   # a presence check or more
        assert not done, "the game that stays was told something"
        pending.cancel()
        with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
            await pending
        await watch.aclose()
        await kept.aclose()
    finally:
        client.close()
        await store.close()
