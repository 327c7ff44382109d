"""Running the server: health, reflection, shutdown, logs, server flags, Redis outages, bots."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess
from testkit.redis_server import PrivateRedis
from tests.support.players import acting_seat, auth, choose, code_of, create, request_for, send, tokens_of


def test_health_and_reflection(server):
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in ("", "cardgame.v1.GameService"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert {"cardgame.v1.GameService", "grpc.health.v1.Health"} <= services


def test_sigterm_reports_not_serving_then_exits_cleanly(redis_url, redis_prefix):
    proc = ServerProcess("--grace", "3", redis_url=redis_url, prefix=redis_prefix).start()
    with grpc.insecure_channel(proc.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        created = create(stub, "buck_euchre")
        stream = stub.WatchGame(pb.WatchGameRequest(game_id=created.game_id), timeout=30)
        assert next(stream).view.version == 1  # an in-flight call
        proc.proc.terminate()
        health = health_pb2_grpc.HealthStub(channel)
        statuses = set()
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                statuses.add(health.Check(health_pb2.HealthCheckRequest(), timeout=0.5).status)
            except grpc.RpcError:
                break
            if health_pb2.HealthCheckResponse.NOT_SERVING in statuses:
                break
            time.sleep(0.05)
        assert health_pb2.HealthCheckResponse.NOT_SERVING in statuses
    assert proc.proc.wait(15) == 0


def test_one_structured_log_line_per_request(redis_url, redis_prefix):
    with ServerProcess(redis_url=redis_url, prefix=redis_prefix, env={"LOG_LEVEL": "INFO"}) as proc:
        with grpc.insecure_channel(proc.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            created = create(stub, "spades", first_dealer=0)
            tokens = tokens_of(created)
            send(stub, "Deal", pb.DealRequest(game_id=created.game_id), tokens[0])
            code_of(send, stub, "Play", pb.PlayRequest(game_id=created.game_id, card="AS"), tokens[2])
    lines = [json.loads(line[line.index("{"):]) for line in proc.log_text().splitlines()
             if "cardgame.requests" in line]
    assert [line["method"] for line in lines] == ["CreateGame", "Deal", "Play"]
    assert lines[1]["seat"] == 0 and lines[2]["seat"] == 2
    assert [line["status"] for line in lines] == ["OK", "OK", "FAILED_PRECONDITION"]
    assert all(line["game_id"] == created.game_id and line["latency_ms"] >= 0 for line in lines)


def test_test_modes_are_refused_unless_switched_on(redis_url, redis_prefix):
    with ServerProcess(redis_url=redis_url, prefix=redis_prefix) as proc:
        with grpc.insecure_channel(proc.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            deck = pb.Deck(cards=[f"{r}{s}" for s in "CDHS" for r in ("9", "10", "J", "Q", "K", "A")])
            assert code_of(create, stub, "buck_euchre", decks=[deck]) == grpc.StatusCode.PERMISSION_DENIED
            assert code_of(create, stub, "buck_euchre", shuffle_seed=4) == grpc.StatusCode.PERMISSION_DENIED


def test_seeded_shuffle_reproduces_deals(stub):
    hands = []
    for _ in range(2):
        created = create(stub, "spades", first_dealer=0, shuffle_seed=99)
        tokens = tokens_of(created)
        send(stub, "Deal", pb.DealRequest(game_id=created.game_id), tokens[0])
        view = send(stub, "RevealHand", pb.RevealHandRequest(game_id=created.game_id), tokens[1]).view
        hands.append(list(view.hand))
    assert hands[0] == hands[1]


def test_redis_down_is_unavailable_and_the_game_resumes_after_restart():
    with PrivateRedis(persistent=True) as redis:
        with ServerProcess(redis_url=redis.url) as proc, grpc.insecure_channel(proc.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            created = create(stub, "spades", first_dealer=0)
            game_id, tokens = created.game_id, tokens_of(created)
            send(stub, "Deal", pb.DealRequest(game_id=game_id), tokens[0])
            health = health_pb2_grpc.HealthStub(channel)
            assert health_status(health) == health_pb2.HealthCheckResponse.SERVING
            redis.stop()
            bid = pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=3)
            with pytest.raises(grpc.RpcError) as info:
                send(stub, "Bid", bid, tokens[1], timeout=10)
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "127.0.0.1" not in info.value.details() and str(redis.port) not in info.value.details()
            assert code_of(stub.GetGame, pb.GetGameRequest(game_id=game_id), timeout=10) == \
                grpc.StatusCode.UNAVAILABLE
            wait_for_health(health, health_pb2.HealthCheckResponse.NOT_SERVING)
            redis.start()
            wait_for_health(health, health_pb2.HealthCheckResponse.SERVING)
            bid.request_id = ""
            view = send(stub, "Bid", bid, tokens[1], timeout=10).view
            assert view.version == 3 and view.seats[1].bid_tricks == 3
        assert "Connection refused" in proc.log_text() or "connecting" in proc.log_text()  # details are logged


def health_status(health) -> int:
    """The server's overall health status."""
    return health.Check(health_pb2.HealthCheckRequest(), timeout=5).status


def wait_for_health(health, status: int, within_s: float = 8.0) -> None:
    """Wait until the server's health is ``status``; fail after ``within_s``."""
    deadline = time.monotonic() + within_s
    while health_status(health) != status:
        assert time.monotonic() < deadline, f"health did not become {status} within {within_s} s"
        time.sleep(0.1)


@pytest.mark.parametrize("variant,strategy", [("spades", enums.PLAYER_KIND_BOT_BASIC),
                                              ("spades2", enums.PLAYER_KIND_BOT_BASIC),
                                              ("buck_euchre", enums.PLAYER_KIND_BOT_RANDOM)])
def test_one_human_plays_a_whole_game_against_bots(stub, variant, strategy):
    seats = 2 if variant == "spades2" else 4
    created = create(stub, variant, kinds=[enums.PLAYER_KIND_HUMAN] + [strategy] * (seats - 1))
    game_id, token = created.game_id, tokens_of(created)[0]
    assert list(tokens_of(created)) == [0]
    rng = random.Random(variant)
    view = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(token)).view
    moves = 0
    while view.phase != enums.PHASE_GAME_OVER:
        actions = [a for a in view.legal_actions if a.kind != enums.ACTION_KIND_REVEAL] or list(view.legal_actions)
        assert actions, f"the human has nothing to do in phase {view.phase}: bots must have played"
        action = choose(view, rng) if any(a.kind == enums.ACTION_KIND_BID for a in actions) else rng.choice(actions)
        method, request = request_for(action, game_id, rng, legacy=False)[:2]
        view = send(stub, method, request, token).view
        moves += 1
        assert moves < 5000
    score = stub.GetScore(pb.GetScoreRequest(game_id=game_id))
    assert score.HasField("winner_side") and score.hands


def test_watch_stream_follows_a_bot_game_to_its_end(stub):
    created = create(stub, "buck_euchre", first_dealer=0,
                     kinds=[enums.PLAYER_KIND_HUMAN] + [enums.PLAYER_KIND_BOT_BASIC] * 3)
    game_id, token = created.game_id, tokens_of(created)[0]
    seen = []

    def watch() -> None:
        for message in stub.WatchGame(pb.WatchGameRequest(game_id=game_id), timeout=120):
            seen.append(message.view)

    thread = threading.Thread(target=watch)
    thread.start()
    rng = random.Random(8)
    view = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(token)).view
    while view.phase != enums.PHASE_GAME_OVER:
        method, request = request_for(rng.choice(list(view.legal_actions)), game_id, rng, legacy=False)[:2]
        view = send(stub, method, request, token).view
    thread.join(60)
    assert not thread.is_alive()
    assert seen[-1].phase == enums.PHASE_GAME_OVER and seen[-1].version == view.version
    versions = [v.version for v in seen]
    assert versions == sorted(set(versions))
    assert all(not v.hand for v in seen)  # a spectator's stream never shows a hand


def test_embedded_memory_store_serves_a_whole_game():
    """`make run` without REDIS_URL: the same server on its in-process store."""
    with ServerProcess() as proc, grpc.insecure_channel(proc.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        created = create(stub, "buck_euchre", first_dealer=2)
        from tests.support.players import play_to_end
        play_to_end(stub, created.game_id, tokens_of(created), random.Random(4))
        assert stub.GetScore(pb.GetScoreRequest(game_id=created.game_id)).HasField("winner_side")


def test_worker_processes_share_one_port(redis_url, redis_prefix):
    with ServerProcess("--workers", "2", redis_url=redis_url, prefix=redis_prefix) as proc:
        children = Path(f"/proc/{proc.proc.pid}/task/{proc.proc.pid}/children").read_text().split()
        workers = [c for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
        assert len(workers) == 2
        with grpc.insecure_channel(proc.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            created = create(stub, "spades2", first_dealer=1)
            game_id, tokens = created.game_id, tokens_of(created)
            rng = random.Random(6)
            for _ in range(30):
                seat, view = acting_seat(stub, game_id, tokens)
                method, request = request_for(choose(view, rng), game_id, rng, legacy=False)[:2]
                send(stub, method, request, tokens[seat])
            assert stub.GetGame(pb.GetGameRequest(game_id=game_id)).view.version == 31
    assert proc.proc.returncode == 0


def test_watch_past_events_without_a_game_state_sends_the_current_view():
    """The benchmark's no-op RPC writes events with no state: watchers fall back to the current view."""
    from bench.noop import METHOD

    with ServerProcess(module="testkit.bench_server") as proc, grpc.insecure_channel(proc.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        created = create(stub, "spades", first_dealer=0)
        noop = channel.unary_unary(METHOD, request_serializer=pb.ActRequest.SerializeToString,
                                   response_deserializer=pb.ActResponse.FromString)
        assert noop(pb.ActRequest(game_id=created.game_id)) == pb.ActResponse()
        with pytest.raises(grpc.RpcError) as missing:
            noop(pb.ActRequest(game_id="no-such-game"))
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        stream = stub.WatchGame(pb.WatchGameRequest(game_id=created.game_id, from_version=1), timeout=10)
        view = next(stream).view
        stream.cancel()
        assert view.version == 2 and view.phase == enums.PHASE_DEAL


def test_an_evicting_redis_is_refused_on_demand_and_warned_about_otherwise():
    import redis as redis_client

    with PrivateRedis() as private:
        redis_client.Redis.from_url(private.url).config_set("maxmemory-policy", "allkeys-lru")
        with pytest.raises(RuntimeError, match="server exited"):
            ServerProcess("--require-noeviction", redis_url=private.url).start(timeout_s=10)
        with ServerProcess(redis_url=private.url) as proc:
            assert "maxmemory-policy is 'allkeys-lru'" in proc.log_text()


def test_a_server_started_before_its_redis_serves_once_redis_answers():
    with PrivateRedis() as private:
        private.stop()
        starter = threading.Timer(2.0, private.start)
        starter.start()
        started = time.monotonic()
        proc = ServerProcess(redis_url=private.url)
        try:
            proc.start(timeout_s=20)
            assert time.monotonic() - started >= 2.0          # not SERVING while Redis was down
            assert "unreachable at start" in proc.log_text()
            with grpc.insecure_channel(proc.address) as channel:
                created = create(pb_grpc.GameServiceStub(channel), "spades", first_dealer=0)
                assert created.view.version == 1
        finally:
            proc.stop()
            starter.join()


def _workers_of(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


def _wait(condition, within_s: float, what: str) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_second_instance_on_a_served_port_fails_loudly(server):
    import subprocess
    import sys

    port = server.address.rsplit(":", 1)[1]
    second = subprocess.run([sys.executable, "-m", "service", "--host", "127.0.0.1", "--port", port],
                            capture_output=True, text=True, timeout=30, cwd=Path(__file__).resolve().parents[2])
    assert second.returncode != 0 and "is another instance running" in second.stderr


def test_an_instance_killed_mid_game_starts_again_at_once_on_its_port(redis_url, redis_prefix):
    first = ServerProcess(redis_url=redis_url, prefix=redis_prefix).start()
    with grpc.insecure_channel(first.address) as channel:
        created = create(pb_grpc.GameServiceStub(channel), "spades", first_dealer=0)
        first.proc.kill()  # its end of the open connection lingers in TIME_WAIT
        first.proc.wait()
    again = ServerProcess(port=first.port, redis_url=redis_url, prefix=redis_prefix).start()
    try:
        with grpc.insecure_channel(again.address) as channel:
            seen = pb_grpc.GameServiceStub(channel).GetGame(pb.GetGameRequest(game_id=created.game_id))
        assert seen.view.version == created.view.version
    finally:
        again.stop()


def test_a_dead_worker_is_replaced_and_workers_stop_with_their_parent(redis_url, redis_prefix):
    import os
    import signal

    proc = ServerProcess("--workers", "2", redis_url=redis_url, prefix=redis_prefix).start()
    try:
        _wait(lambda: proc.log_text().count("cardgame server listening on") == 2, 15, "both workers did not listen")
        first = _workers_of(proc.proc.pid)
        assert len(first) == 2
        os.kill(first[0], signal.SIGKILL)
        _wait(lambda: len(_workers_of(proc.proc.pid)) == 2 and first[0] not in _workers_of(proc.proc.pid),
              15, "the dead worker was not replaced")
        _wait(lambda: proc.log_text().count("cardgame server listening on") == 3, 15,
              "the replacement worker did not listen")
        with grpc.insecure_channel(proc.address) as channel:
            for _ in range(4):   # whichever worker answers, it serves
                assert create(pb_grpc.GameServiceStub(channel), "spades", first_dealer=0).view.version == 1
        workers = _workers_of(proc.proc.pid)
        proc.proc.kill()     # the parent dies without a word to its workers
        proc.proc.wait()
        _wait(lambda: not any(Path(f"/proc/{w}").exists() and b"spawn_main" in Path(f"/proc/{w}/cmdline").read_bytes()
                              for w in workers), 15, "workers outlived their parent")
    finally:
        proc.stop()
