"""The lifecycle's costs through a real server on Redis: listing, deadline sweeping, bytes.

- ``list_games_p50_ms`` / ``list_games_p99_ms``: ListGames (page of 50) with 10,000 games of
  one API key indexed, a tenth of them under the label filtered on, one call in flight;
- ``sweep_lag_p50_ms`` / ``sweep_lag_p99_ms``: how long after its deadline each of 1,000 turns
  left alone was played (the timeout event's commit time minus its deadline), one server;
- ``redis_bytes_index_per_game`` / ``redis_bytes_schedule_per_game``: ``MEMORY USAGE`` of the
  owner's index keys (two labels and a player id per game) and of the schedule shards while
  every game waits on a deadline, per game.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time

import grpc
import redis

from bench.redis_target import redis_target
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from cardgame.v1 import lifecycle_pb2 as lc
from service.rpc import apikeys
from testkit.launcher import ServerProcess

INDEXED = int(os.environ.get("BENCH_INDEXED_GAMES", "10000"))
DEADLINES = int(os.environ.get("BENCH_DEADLINES", "1000"))
LIST_CALLS = 400
CONCURRENCY = 32
KEY, ENTRY = apikeys.new_key("bench")
METADATA = [("x-api-key", KEY)]
BOT = pb.SeatConfig(kind=enums.PLAYER_KIND_BOT_BASIC)


def _request(i: int, timeout_ms: int = 0) -> pb.CreateGameRequest:
    return pb.CreateGameRequest(
        variant_name="buck_euchre", first_dealer=0, labels={"room": f"r{i % 10}", "bench": "yes"},
        seats=[pb.SeatConfig(name="p", external_player_id=f"user-{i % 1000}"), BOT, BOT, BOT],
        lifecycle=lc.LifecycleOptions(turn_timeout_ms=timeout_ms))


async def _create_many(stub, count: int, timeout_ms: int = 0) -> list[pb.CreateGameResponse]:
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(i: int) -> pb.CreateGameResponse:
        async with gate:
            return await stub.CreateGame(_request(i, timeout_ms), metadata=METADATA, timeout=30)

    return await asyncio.gather(*(one(i) for i in range(count)))


def _quantiles(samples: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(samples, n=100)
    return q[49], q[98]


async def _listing(address: str) -> dict[str, float]:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        await _create_many(stub, INDEXED)
        samples = []
        for i in range(LIST_CALLS):
            started = time.perf_counter()
            page = await stub.ListGames(pb.ListGamesRequest(labels={"room": f"r{i % 10}"}, page_size=50),
                                        metadata=METADATA, timeout=30)
            samples.append((time.perf_counter() - started) * 1000)
            assert len(page.games) == 50
        p50, p99 = _quantiles(samples)
        return {"list_games_p50_ms": p50, "list_games_p99_ms": p99}


async def _sweeping(address: str, client: redis.Redis, prefix: str) -> dict[str, float]:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        events = stub.WatchEvents(pb.WatchEventsRequest(), metadata=METADATA, timeout=300)
        games = await _create_many(stub, DEADLINES, timeout_ms=2000)  # each dealer's deal, left to the clock
        schedule = sum(client.memory_usage(k, samples=0) or 0 for k in client.scan_iter(match=f"{prefix}:due:*"))
        ours = {g.game_id for g in games}
        lags: dict[str, float] = {}
        async for message in events:
            event = message.event
            if event.kind == lc.EVENT_KIND_TIMEOUT and event.game_id in ours and event.game_id not in lags:
                lags[event.game_id] = event.time.ToMilliseconds() - event.deadline.ToMilliseconds()
                if len(lags) == len(ours):
                    break
        events.cancel()
        p50, p99 = _quantiles(list(lags.values()))
        return {"sweep_lag_p50_ms": p50, "sweep_lag_p99_ms": p99,
                "redis_bytes_schedule_per_game": schedule / len(games)}


def _index_bytes(client: redis.Redis, prefix: str, games: int) -> dict[str, float]:
    index = sum(client.memory_usage(k, samples=0) or 0 for k in client.scan_iter(match=f"{prefix}:idx:*", count=1000))
    return {"redis_bytes_index_per_game": index / games}


def main() -> None:
    """Start a server with an API key on Redis (``bench.redis_target``), measure, print, clean up."""
    flags = ("--create-rate", "100000", "--create-burst", "100000")
    with redis_target() as (redis_url, prefix):
        client = redis.Redis.from_url(redis_url)
        try:
            with ServerProcess(*flags, redis_url=redis_url, prefix=prefix,
                               env={"CARDGAME_API_KEYS": ENTRY}) as server:
                figures = asyncio.run(_listing(server.address))
                figures.update(_index_bytes(client, prefix, INDEXED))
                figures.update(asyncio.run(_sweeping(server.address, client, prefix)))
        finally:
            client.close()
    for name, value in figures.items():
        print(f"{name} {value:.1f}", flush=True)


if __name__ == "__main__":
    main()
