"""The sweepers of real server processes on Redis: a killed process's shards taken over by the
survivor, which plays the passed turn once; a deadline earlier than anything scheduled waking a
sweeper that sleeps until its next renewal a minute away."""

from __future__ import annotations

import json
import signal
import time

import grpc
import pytest
import redis

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.store.port import SHARDS, shard_of
from testkit.launcher import ServerProcess

pytestmark = pytest.mark.redis

BOT = 3  # PLAYER_KIND_BOT_BASIC


def _create(address: str, timeout_ms: int) -> str:
    """A game whose human seat (the first dealer) must act within ``timeout_ms``."""
    with grpc.insecure_channel(address) as channel:
        request = pb.CreateGameRequest(variant_name="buck_euchre", first_dealer=0,
                                       seats=[pb.SeatConfig(name="you")] + [pb.SeatConfig(name="bot", kind=BOT)] * 3)
        request.lifecycle.turn_timeout_ms = timeout_ms
        request.lifecycle.timeouts_before_away = 100
        return pb_grpc.GameServiceStub(channel).CreateGame(request, timeout=10).game_id


def _leases(client: redis.Redis, prefix: str) -> dict[int, str]:
    return {int(s): who.decode() for s, who in client.hgetall(f"{prefix}:sweepers:{{sweep}}:leases").items()}


def _pid_of(sweeper: str) -> int:
    return int(sweeper.rsplit("-", 2)[1])


def _timeouts(client: redis.Redis, prefix: str, game_id: str) -> list[dict]:
    """The game's TIMEOUT events in its owner's stream, oldest first."""
    found = []
    for _, fields in client.xrange(f"{prefix}:events:{{_open}}"):
        body = json.loads(fields[b"e"].split(b" ", 1)[1])
        if body["k"] == "timeout" and body["g"] == game_id:
            found.append(body)
    return found


def _wait(condition, within_s: float, what: str):
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} not within {within_s} s")


def test_a_killed_sweepers_shards_pass_to_the_survivor_which_plays_the_turn_once(redis_url, redis_prefix):
    client = redis.Redis.from_url(redis_url)
    servers = [ServerProcess(redis_url=redis_url, prefix=redis_prefix) for _ in range(2)]
    try:
        for server in servers:
            server.start()
        pids = {server.proc.pid for server in servers}
        _wait(lambda: {_pid_of(who) for who in _leases(client, redis_prefix).values()} == pids, 10,
              "both processes holding shards")
        game_id = _create(servers[0].address, 3000)
        holder = _pid_of(_leases(client, redis_prefix)[shard_of(game_id)])
        victim = next(server for server in servers if server.proc.pid == holder)
        survivor = next(server for server in servers if server is not victim)
        victim.proc.send_signal(signal.SIGKILL)   # before the deadline: its shards' turns are the survivor's
        victim.proc.wait(10)
        killed = time.time() * 1000
        held = _wait(lambda: (leases := _leases(client, redis_prefix)) and len(leases) == SHARDS and
                     {_pid_of(who) for who in leases.values()} == {survivor.proc.pid}, 10, "the takeover")
        assert held
        first = _wait(lambda: _timeouts(client, redis_prefix, game_id), 15, "the passed turn played")[0]
        # the turn passed after the kill (3 s after the game was made, milliseconds before it),
        # so the survivor played it, and not before its deadline
        assert killed < first["deadline"] <= first["t"]
        time.sleep(1.5)   # any second play of that turn would be in the stream by now
        timeouts = _timeouts(client, redis_prefix, game_id)
        assert len({t["deadline"] for t in timeouts}) == len(timeouts)      # each deadline played once
        with grpc.insecure_channel(survivor.address) as channel:
            history = pb_grpc.GameServiceStub(channel).GetHistory(pb.GetHistoryRequest(game_id=game_id), timeout=10)
        played = [e for e in history.entries if e.note == "timeout"]
        assert len(played) == len(_timeouts(client, redis_prefix, game_id))
    finally:
        for server in servers:
            server.stop()
        client.close()


def test_a_deadline_earlier_than_any_wakes_a_sleeping_sweeper(redis_url, redis_prefix):
    client = redis.Redis.from_url(redis_url)
    far = int(time.time() * 1000) + 3_600_000
    for shard in range(SHARDS):   # every shard's earliest time an hour away: the sweeper sleeps
        client.zadd(f"{redis_prefix}:due:{{{shard}}}", {f"later-{shard}": far})
    try:
        with ServerProcess(redis_url=redis_url, prefix=redis_prefix) as server:
            _wait(lambda: len(_leases(client, redis_prefix)) == SHARDS, 10, "the sweeper holding every shard")
            time.sleep(1.0)   # it has read its shards' times and sleeps until its renewal a minute away
            game_id = _create(server.address, 1000)
            played = _wait(lambda: _timeouts(client, redis_prefix, game_id), 10, "the turn played")
            assert played[0]["t"] >= played[0]["deadline"]
    finally:
        client.close()
