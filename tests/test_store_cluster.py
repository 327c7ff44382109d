"""The Redis store and the whole service on a real three-node Redis Cluster."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from redis_server import PrivateRedisCluster

from service.store_redis import RedisStore


@pytest.fixture(scope="module")
def cluster():
    """A private three-master cluster for this module."""
    with PrivateRedisCluster() as nodes:
        yield nodes


async def test_games_spread_over_shards_keep_every_store_guarantee(cluster):
    store = RedisStore(cluster.url, cluster=True, prefix="cluster-test")
    try:
        games = [f"game-{i}" for i in range(24)]  # their hash tags land on every shard
        for game in games:
            await store.create(game, b"s1", [b"e1"])
        watch = store.watch(games[5])
        assert await watch.__anext__() == 1
        for game in games:
            done = await store.commit(game, 1, b"s2", [b"e2", b"e3"], "req-1", b"answer", False)
            assert done.ok and done.version == 3
            again = await store.commit(game, 3, b"s4", [b"e4"], "req-1", b"other", False)
            assert again.replay == b"answer" and not again.ok
            stale = await store.commit(game, 1, b"s9", [b"e9"], None, None, False)
            assert not stale.ok and stale.version == 3
            assert await store.log_after(game, 1) == [(2, b"e2"), (3, b"e3")]
            assert (await store.load(game)).state == b"s2"
        assert await asyncio.wait_for(watch.__anext__(), 5) == 3
        await watch.aclose()
        racers = await asyncio.gather(*(store.commit(games[0], 3, b"r", [b"r"], None, None, False)
                                        for _ in range(20)))
        assert sum(r.ok for r in racers) == 1
        tags_by_node = []
        for node in store.client.get_nodes():
            keys = await store.client.keys("cluster-test:*", target_nodes=node)
            tags_by_node.append({k.split(b"}")[0] for k in keys})
        assert all(tags_by_node)  # games are spread over every shard …
        assert sum(len(tags) for tags in tags_by_node) == len(games)  # … each game whole on one
    finally:
        await store.close()


def test_the_service_plays_a_game_on_the_cluster(cluster):
    from cardgame.v1 import game_service_pb2 as pb
    from cardgame.v1 import game_service_pb2_grpc as pb_grpc
    from service.launcher import ServerProcess
    from tests.service.players import create, play_to_end, tokens_of

    with ServerProcess("--redis-cluster", redis_url=cluster.url, prefix="cluster-svc") as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            created = create(stub, "buck_euchre", first_dealer=0)
            play_to_end(stub, created.game_id, tokens_of(created), random.Random(3))
            assert stub.GetScore(pb.GetScoreRequest(game_id=created.game_id)).HasField("winner_side")
