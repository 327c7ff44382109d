"""The service on a private Redis Cluster with replicas, through faults: a cold start under a
burst, scripts missing from a node, and a master (the one named in the server's URL) killed
under load while games are played and watched."""

from __future__ import annotations

import asyncio
import collections
import random
import threading
import time

import grpc
import pytest

from cardgame.moves import notation_for
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.store.outages import outlasting
from service.store.redis.store import RedisStore
from testkit.launcher import ServerProcess
from testkit.redis_server import PrivateRedisCluster

PREFIX = "faults"
BOTS = 3  # PLAYER_KIND_BOT_BASIC


def _request() -> pb.CreateGameRequest:
    return pb.CreateGameRequest(variant_name="buck_euchre", first_dealer=0,
                                seats=[pb.SeatConfig(name="you")] + [pb.SeatConfig(name="bot", kind=BOTS)] * 3)


def _auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


@pytest.fixture(scope="module")
def cluster():
    """Three masters with one replica each; a dead master is replaced after about a second."""
    with PrivateRedisCluster(replicas=1, node_timeout_ms=1000) as nodes:
        yield nodes


@pytest.fixture(scope="module")
def server(cluster):
    proc = ServerProcess("--redis-cluster", redis_url=cluster.url, prefix=PREFIX)
    proc.start()
    yield proc
    proc.stop()


async def _burst(address: str, calls: int, concurrency: int) -> collections.Counter[str]:
    codes: collections.Counter[str] = collections.Counter()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        gate = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with gate:
                try:
                    await stub.CreateGame(_request(), timeout=10)
                    codes["OK"] += 1
                except grpc.aio.AioRpcError as exc:
                    codes[exc.code().name] += 1

        await asyncio.gather(*(one() for _ in range(calls)))
    return codes


def test_a_fresh_server_answers_a_burst_of_creates_on_a_cluster(server):
    """The first calls reach a server whose cluster client learnt the slots before SERVING."""
    assert asyncio.run(_burst(server.address, 300, 100)) == {"OK": 300}


def _move(stub, game_id: str, token: str, within_s: float) -> int:
    """Make the seat's first legal move, retrying UNAVAILABLE until ``within_s``; the new version."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            view = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=_auth(token), timeout=3).view
            action = notation_for(view.legal_actions[0], rng=random.Random(0))
            return stub.Act(pb.ActRequest(game_id=game_id, action=action), metadata=_auth(token),
                            timeout=3).view.version
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_scripts_missing_from_every_node_are_loaded_again(cluster, server):
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        games = [stub.CreateGame(_request(), timeout=10) for _ in range(12)]
        for port in cluster.live_ports():
            assert cluster.cli_call(port, "script", "flush").strip() == "OK"
        for game in games:  # not one UNAVAILABLE: a NOSCRIPT answer is followed by the whole script
            assert _move(stub, game.game_id, game.seat_tokens[0].token, within_s=0) > game.view.version
        assert asyncio.run(_burst(server.address, 30, 10)) == {"OK": 30}


class _Watcher(threading.Thread):
    """A WatchGame stream in a thread, keeping the newest version it was shown."""

    def __init__(self, address: str, game_id: str):
        super().__init__(daemon=True)
        self.channel = grpc.insecure_channel(address)
        self.call = pb_grpc.GameServiceStub(self.channel).WatchGame(pb.WatchGameRequest(game_id=game_id),
                                                                    timeout=60)
        self.latest = 0
        self.ended: grpc.StatusCode | None = None

    def run(self) -> None:
        try:
            for message in self.call:
                self.latest = message.view.version
        except grpc.RpcError as exc:
            self.ended = exc.code()

    def stop(self) -> None:
        self.call.cancel()
        self.join(5)
        self.channel.close()


def test_a_master_killed_under_load_leaves_every_shard_writable_and_every_watch_alive(cluster, server):
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        url_port = cluster.ports[0]
        games, doomed = [], []
        for _ in range(200):   # game ids are random: at least 18 games, some on the dying shard and some not
            games.append(stub.CreateGame(_request(), timeout=10))
            if cluster.master_of(f"{PREFIX}:{{{games[-1].game_id}}}:state") == url_port:
                doomed.append(games[-1])
            if len(games) >= 18 and doomed and len(doomed) < len(games):
                break
        assert doomed and len(doomed) < len(games)  # games on the dying shard and on the others
        watched = doomed[:3] + [g for g in games if g not in doomed][:3]
        watchers = [_Watcher(server.address, g.game_id) for g in watched]
        for watcher in watchers:
            watcher.start()
        try:
            before = {g.game_id: _move(stub, g.game_id, g.seat_tokens[0].token, within_s=5) for g in games}
            time.sleep(0.5)
            assert [w.latest for w in watchers] == [before[g.game_id] for g in watched]

            cluster.kill(url_port)  # the master named in the server's URL, which feeds its watches
            deadline = time.monotonic() + 20
            while True:  # the replica takes over after the node timeout
                try:
                    if cluster.master_of(f"{PREFIX}:{{{doomed[0].game_id}}}:state") != url_port:
                        break
                except RuntimeError:
                    pass
                assert time.monotonic() < deadline, "no replica took over"
                time.sleep(0.1)
            cluster.wait_ok(20)

            after = {g.game_id: _move(stub, g.game_id, g.seat_tokens[0].token, within_s=15) for g in games}
            assert all(after[gid] > before[gid] for gid in before)  # every shard takes moves again
            watch_deadline = time.monotonic() + 10
            while any(w.latest < after[g.game_id] for w, g in zip(watchers, watched, strict=True)):
                assert time.monotonic() < watch_deadline, [(w.latest, w.ended) for w in watchers]
                time.sleep(0.1)
            assert asyncio.run(_burst(server.address, 60, 20)) == {"OK": 60}
        finally:
            for watcher in watchers:
                watcher.stop()


def test_the_game_lifecycle_works_across_the_shards_of_a_cluster(server):
    """Listing, turn deadlines swept, events, history and deletion with games on every shard."""
    from cardgame.v1 import enums_pb2 as enums
    from cardgame.v1 import lifecycle_pb2 as lc

    mark = f"c{random.randrange(10**9)}"
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        events = stub.WatchEvents(pb.WatchEventsRequest(), timeout=30)
        games = []
        for i in range(12):
            request = _request()
            request.labels["run"] = mark
            request.seats[0].external_player_id = f"{mark}-{i % 2}"
            request.lifecycle.turn_timeout_ms = 1000
            games.append(stub.CreateGame(request, timeout=10))
        listed = stub.ListGames(pb.ListGamesRequest(labels={"run": mark}, page_size=200), timeout=10)
        assert [g.game_id for g in listed.games] == [g.game_id for g in reversed(games)]
        odd = stub.ListGames(pb.ListGamesRequest(external_player_id=f"{mark}-1"), timeout=10)
        assert {g.game_id for g in odd.games} == {g.game_id for g in games[1::2]}
        for game in games:  # deal, then leave the human's turns to the clock
            _move(stub, game.game_id, game.seat_tokens[0].token, within_s=5)
        timed_out: set[str] = set()
        ours = {g.game_id for g in games}
        for message in events:
            if message.event.kind == lc.EVENT_KIND_TIMEOUT and message.event.game_id in ours:
                timed_out.add(message.event.game_id)
                if timed_out == ours:
                    break
        events.cancel()
        history = stub.GetHistory(pb.GetHistoryRequest(game_id=games[0].game_id), timeout=10)
        assert any(e.note == "timeout" for e in history.entries)
        stub.DeleteGame(pb.DeleteGameRequest(game_id=games[0].game_id), timeout=10)
        left = stub.ListGames(pb.ListGamesRequest(labels={"run": mark}, status=enums.GAME_STATUS_IN_PLAY), timeout=10)
        assert games[0].game_id not in {g.game_id for g in left.games} and len(left.games) == 11


async def test_event_reads_reach_the_new_master_after_the_one_the_store_started_from_dies():
    """XREAD is a command whose keys redis-py's cluster client would look up with COMMAND GETKEYS
    on the node it started from: once that node is dead, every read of an owner's events would
    fail however the slots moved. The store sends it to the stream's own master instead."""
    with PrivateRedisCluster(replicas=1, node_timeout_ms=1000) as nodes:
        store = RedisStore(nodes.url, cluster=True, prefix="events-failover")
        try:
            owners = [f"owner-{i}" for i in range(12)]   # streams on every shard
            for owner in owners:
                await store.publish(owner, "g", [b"1 {}"], 100)
                assert [entry[2] for entry in await store.read_events(owner, "", 10, 0)] == [b"1 {}"]
            nodes.kill(nodes.ports[0])   # the node in the store's URL, where its client started
            nodes.wait_ok(20)
            for owner in owners:   # replication is asynchronous: what the dead master took last may be lost
                await outlasting(lambda owner=owner: store.publish(owner, "g", [b"2 {}"], 100), 10.0)
                found = await outlasting(lambda owner=owner: store.read_events(owner, "", 10, 0), 10.0)
                assert [entry[2] for entry in found][-1:] == [b"2 {}"]
            assert await store.read_events(owners[0], "", 10, 200) != []   # a blocking read too
        finally:
            await store.close()
