"""The Redis store and the whole service on a real three-node Redis Cluster."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest

from service.store.port import SHARDS, Commit, shard_of
from service.store.redis.store import RedisStore
from testkit.redis_server import PrivateRedisCluster


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
            done = await store.commit(Commit(game, 1, b"s2", [b"e2", b"e3"], "req-1", b"answer", False))
            assert done.ok and done.version == 3
            again = await store.commit(Commit(game, 3, b"s4", [b"e4"], "req-1", b"other", False))
            assert again.replay == b"answer" and not again.ok
            stale = await store.commit(Commit(game, 1, b"s9", [b"e9"], None, None, False))
            assert not stale.ok and stale.version == 3
            assert await store.log_after(game, 1) == [(2, b"e2"), (3, b"e3")]
            assert (await store.load(game)).state == b"s2"
        assert await asyncio.wait_for(watch.__anext__(), 5) == 3
        await watch.aclose()
        racers = await asyncio.gather(*(store.commit(Commit(games[0], 3, b"r", [b"r"], None, None, False))
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


def _events(*seqs: int) -> list[bytes]:
    return [f"{seq} {{}}".encode() for seq in seqs]


async def test_the_game_lifecycle_works_across_slots(cluster):
    store = RedisStore(cluster.url, cluster=True, prefix="cluster-life")
    try:
        games: dict[int, str] = {}
        for i in range(1000):  # a game on every schedule shard
            games.setdefault(shard_of(f"life-{i}"), f"life-{i}")
            if len(games) == SHARDS:
                break
        assert sorted(games) == list(range(SHARDS))
        owners = [f"owner-{i}" for i in range(6)]
        owner_of = {game: owners[i % len(owners)] for i, game in enumerate(games.values())}
        for game in games.values():
            await store.create(game, b"s1", [b"e1"], events=_events(1))
            assert (await store.commit(Commit(game, 1, b"s2", [b"e2"], None, None, False, events=_events(2, 3)))).ok
            assert await store.trim_outbox(game, 1) == 1
            assert await store.outbox(game) == _events(2, 3)
            assert await store.publish(owner_of[game], game, await store.outbox(game), 100) == 2
            assert await store.publish(owner_of[game], game, _events(2, 3), 100) == 0
            assert await store.publish_outbox(owner_of[game], game, 100) == 0   # published: only trimmed
            assert await store.outbox(game) == []
            scheduled = await store.commit(Commit(game, 2, b"s2", [b"e3"], due_ms=900))   # two steps: two slots
            assert (scheduled.ok, scheduled.due_before, scheduled.due_atomic) == (True, None, False)
            await store.schedule(game, 1_000)
            terms = [f"l:n={shard_of(game) % 2}", "p:everyone"]
            await store.index_game(owner_of[game], game, 10_000 + shard_of(game), terms)
        # a blocked XREAD routed to the owner's slot, woken by a publish
        assert await store.stream_end(owners[0]) != ""   # read on the owner's slot too
        reader = asyncio.ensure_future(store.read_events(owners[0], "", 100, 3_000))
        first = await asyncio.wait_for(reader, 5)
        assert {g for _, g, _ in first} == {g for g, o in owner_of.items() if o == owners[0]}
        waiting = asyncio.ensure_future(store.read_events(owners[0], first[-1][0], 100, 3_000))
        await asyncio.sleep(0.2)
        some_game = next(g for g, o in owner_of.items() if o == owners[0])
        await store.publish(owners[0], some_game, _events(4), 100)
        assert [(g, e) for _, g, e in await asyncio.wait_for(waiting, 5)] == [(some_game, _events(4)[0])]
        for shard, game in games.items():
            claimed = await store.claim_due(shard, 1_000, 500, 10)
            assert claimed == [(game, 1_500)]
            assert await store.settle(game, 1_500, 9_000) is True
            assert await store.claim_due(shard, 1_500, 500, 10) == []
        for owner in owners:
            mine = sorted(((10_000 + shard_of(g), g) for g, o in owner_of.items() if o == owner), reverse=True)
            page, cursor = await store.list_index(owner, [], None, 2)
            assert page == mine[:2]
            assert (await store.list_index(owner, ["p:everyone", "l:n=0"], None, 100))[0] == \
                [item for item in mine if (item[0] - 10_000) % 2 == 0]
        assert await store.owners() == owners
        ids = list(games.values())
        gone = ids[::3]
        for game in gone:
            assert await store.delete(game) is True
        loaded = await store.loads([*ids, "never-made"])
        assert [found and found.state for found in loaded] == [None if g in gone else b"s2" for g in ids] + [None]
        for owner in owners:
            cursor, passes = "", 0
            while True:
                cursor = await store.sweep_index(owner, cursor, 2)
                passes += 1
                if cursor == "" or passes > 50:
                    break
            assert cursor == ""
            listed = (await store.list_index(owner, ["p:everyone"], None, 100))[0]
            assert {g for _, g in listed} == {g for g, o in owner_of.items() if o == owner and g not in gone}
            await store.forget(owner, gone[0])
        assert await store.prune_index(owner_of[ids[1]], [ids[1]], {ids[1]: ["p:everyone"]}) == 1
        due_nodes = set()
        for node in store.client.get_nodes():
            keys = await store.client.keys("cluster-life:due:*", target_nodes=node)
            if keys:
                due_nodes.add(node.name)
        assert len(due_nodes) > 1  # the schedule shards are spread over the cluster
        for owner in owners:  # an owner's keys share one slot; the owners spread over the nodes
            slots = {store.client.keyslot(key) for key in (store.index_key(owner, "all"), store.events_key(owner),
                                                            store.index_key(owner, "t:p:everyone"))}
            assert len(slots) == 1
        assert len({store.client.get_node_from_key(store.events_key(o)).name for o in owners}) > 1
    finally:
        await store.close()


def test_the_service_plays_a_game_on_the_cluster(cluster):
    from cardgame.v1 import game_service_pb2 as pb
    from cardgame.v1 import game_service_pb2_grpc as pb_grpc
    from testkit.launcher import ServerProcess
    from tests.support.players import create, play_to_end, tokens_of

    with ServerProcess("--redis-cluster", redis_url=cluster.url, prefix="cluster-svc") as server:
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            created = create(stub, "buck_euchre", first_dealer=0)
            play_to_end(stub, created.game_id, tokens_of(created), random.Random(3))
            assert stub.GetScore(pb.GetScoreRequest(game_id=created.game_id)).HasField("winner_side")


async def test_change_notifications_stay_on_the_shard_of_their_game(cluster):
    """SPUBLISH: a watcher's sharded subscription lives on the game's master, and a commit's
    notification reaches no subscriber of the plain channel on any node."""
    import redis.asyncio as aioredis

    store = RedisStore(cluster.url, cluster=True, prefix="shard-feed")
    listeners = [aioredis.Redis(port=port) for port in cluster.ports]
    try:
        game = "game-feed"
        await store.create(game, b"s1", [b"e1"])
        channel = store.key(game, "changes")
        owner = store.client.get_node_from_key(channel)
        plain = []
        for client in listeners:
            pubsub = client.pubsub()
            await pubsub.subscribe(channel)
            await pubsub.get_message(timeout=1)  # the subscribe confirmation
            plain.append(pubsub)
        watch = store.watch(game)
        assert await watch.__anext__() == 1
        counts = {}
        for client, port in zip(listeners, cluster.ports, strict=True):
            reply = await client.execute_command("PUBSUB", "SHARDNUMSUB", channel)
            counts[port] = int(reply[1])
        assert counts == {port: int(port == owner.port) for port in cluster.ports}
        await store.commit(Commit(game, 1, b"s2", [b"e2"], None, None, False))
        assert await asyncio.wait_for(watch.__anext__(), 5) == 2
        for pubsub in plain:  # a broadcast PUBLISH would have reached all of these
            assert await pubsub.get_message(timeout=0.2) is None
            await pubsub.aclose()
        await watch.aclose()
    finally:
        for client in listeners:
            await client.aclose()
        await store.close()


async def test_commands_wait_for_a_free_connection_on_the_cluster(cluster):
    """A burst far above the pool's size is served in turn (none refused); a command that finds
    every connection busy past the wait fails as StoreBusy, never having been sent."""
    from redis.exceptions import MaxConnectionsError

    from service.store.redis.connection import connect_cluster, pool_exhausted

    client = connect_cluster(cluster.url, max_connections=2, pool_wait_s=1.0)
    try:
        keys = [f"cluster-gate:{{{i % 50}}}:k" for i in range(300)]
        replies = await asyncio.gather(*(client.set(key, b"v") for key in keys))
        assert replies == [True] * 300
        assert all(len(node._connections) <= 2 for node in client.get_nodes())
        await client.delete(*keys[:50])  # one key per slot: split across the nodes as a pipeline each
    finally:
        await client.aclose()

    narrow = connect_cluster(cluster.url, max_connections=1, pool_wait_s=0.2)
    try:
        blocked = asyncio.create_task(narrow.blpop(["cluster-gate:empty"], timeout=1))
        await asyncio.sleep(0.05)
        with pytest.raises(MaxConnectionsError) as refused:
            await narrow.get("cluster-gate:other")
        assert pool_exhausted(refused.value)
        assert await blocked is None
    finally:
        await narrow.aclose()


def test_a_cold_server_serves_bursts_of_first_creates_on_a_cluster(cluster):
    """Rounds of 100 concurrent first CreateGame calls (each seating bots, which play at once) on
    a fresh server with two connections a node: every call waits its turn and succeeds."""
    from cardgame.v1 import enums_pb2 as enums
    from cardgame.v1 import game_service_pb2 as pb
    from cardgame.v1 import game_service_pb2_grpc as pb_grpc
    from testkit.launcher import ServerProcess

    request = pb.CreateGameRequest(variant_name="spades", seats=[pb.SeatConfig(name="you")]
                                   + [pb.SeatConfig(name="bot", kind=enums.PLAYER_KIND_BOT_BASIC)] * 3)

    async def rounds(address: str) -> dict[str, int]:
        codes: dict[str, int] = {}
        async with grpc.aio.insecure_channel(address) as channel:
            stub = pb_grpc.GameServiceStub(channel)

            async def one() -> None:
                try:
                    await stub.CreateGame(request, timeout=10)
                    name = "OK"
                except grpc.aio.AioRpcError as exc:
                    name = exc.code().name
                codes[name] = codes.get(name, 0) + 1

            for _ in range(3):
                await asyncio.gather(*(one() for _ in range(100)))
        return codes

    with ServerProcess("--redis-cluster", "--redis-max-connections", "2", redis_url=cluster.url,
                       prefix="cluster-cold") as server:
        assert asyncio.run(rounds(server.address)) == {"OK": 300}
