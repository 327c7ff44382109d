"""SIGTERM: after ``--drain`` the server ends every open stream at once with UNAVAILABLE (clients
resume on another instance), refuses every new call UNAVAILABLE while its calls in flight finish,
and exits as soon as they are done, not after ``--grace``.

A rolling restart of three instances on one Redis under a stream of moves and WatchGame streams
loses no move and no version, and each instance is gone well before its grace would run out.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import threading
import time
import urllib.error
import urllib.request

import grpc
import pytest

from cardgame.client import CHANNEL_OPTIONS, GameClient
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.errors import Unavailable
from service.rpc.calls import Call, CallCap, handled
from service.rpc.stream_gate import StreamGate, StreamLimits
from testkit.launcher import ServerProcess
from tests.support.calls import CallContext
from tests.support.players import choose, create, reason_of

DRAIN_S = 0.2
GRACE_S = 10.0
EXIT_AFTER_CALLS_S = 2.0   # SIGTERM to exit, less the drain: far below the grace
SHUTTING_DOWN = "server shutting down; reconnect"
FLAGS = ("--drain", str(DRAIN_S), "--grace", str(GRACE_S))


async def test_closing_the_stream_gate_ends_open_streams_as_unavailable_and_refuses_new_ones():
    gate = StreamGate(StreamLimits())

    async def stream(peer: str) -> None:
        with gate.admit(peer, "g"):
            await asyncio.Event().wait()

    streams = [asyncio.ensure_future(stream(f"ipv4:127.0.0.1:{port}")) for port in (1, 2)]
    cancelled = asyncio.ensure_future(stream("ipv4:127.0.0.1:3"))
    await asyncio.sleep(0)
    assert gate.open == 3
    cancelled.cancel()   # the caller left: a cancellation that is not the gate's stays one
    await asyncio.sleep(0)
    assert gate.close() == 2
    for ended in streams:
        with pytest.raises(Unavailable, match="server shutting down; reconnect"):
            await ended
    assert cancelled.cancelled()
    assert gate.open == 0
    with pytest.raises(Unavailable), gate.admit("ipv4:127.0.0.1:4"):
        pass


async def test_a_closed_call_cap_refuses_calls_unavailable_while_the_calls_in_flight_finish():
    cap = CallCap()
    release = asyncio.Event()

    async def in_flight() -> None:
        async with handled("Act", Call(), CallContext(), cap):
            await release.wait()

    task = asyncio.ensure_future(in_flight())
    await asyncio.sleep(0)
    assert cap.active == 1
    cap.close()
    refused = CallContext()
    with pytest.raises(grpc.aio.AbortError):
        async with handled("GetGame", Call(), refused, cap):
            pytest.fail("a closed cap admitted a call")
    assert refused.status.code == grpc.StatusCode.UNAVAILABLE and refused.status.details == SHUTTING_DOWN
    assert cap.active == 1
    assert not await cap.settled(0.05)        # the call in flight holds it
    release.set()
    assert await cap.settled(5.0)
    await task
    assert cap.active == 0


def _connect_catalog(port: int) -> tuple[int, dict]:
    """A Connect (JSON) GetCatalog on the HTTP port: its HTTP status and body."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/cardgame.v1.GameService/GetCatalog", data=b"{}",
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_call_arriving_while_the_calls_in_flight_finish_is_refused_unavailable_and_they_finish(private_redis):
    """A GetGame waits on a frozen Redis when SIGTERM comes; past the drain, a new call is refused
    UNAVAILABLE ``SHUTTING_DOWN`` at once on either port (not cancelled, not left to the closing
    port), the GetGame in flight is answered once Redis wakes, and then the server exits."""
    server = ServerProcess(*FLAGS, "--http-port", "0", redis_url=private_redis.url, prefix="drain-in-flight").start()
    assert server.http_port is not None
    try:
        with server.channel() as chan:
            stub = pb_grpc.GameServiceStub(chan)
            game_id = create(stub, "spades").game_id
            stub.GetCatalog(pb.GetCatalogRequest(), timeout=5)
            assert _connect_catalog(server.http_port)[0] == 200
            private_redis.pause()
            try:
                waiting = stub.GetGame.future(pb.GetGameRequest(game_id=game_id), timeout=15)
                time.sleep(0.1)
                assert server.proc is not None
                server.proc.send_signal(signal.SIGTERM)
                refused = None
                for _ in range(100):     # the drain first: until then every call is answered
                    try:
                        stub.GetCatalog(pb.GetCatalogRequest(), timeout=5)
                    except grpc.RpcError as exc:
                        refused = exc
                        break
                    time.sleep(0.02)
                assert refused is not None, "no call was refused after the drain"
                assert refused.code() == grpc.StatusCode.UNAVAILABLE, refused
                assert refused.details() == SHUTTING_DOWN and reason_of(refused) == "SHUTTING_DOWN"
                status, body = _connect_catalog(server.http_port)
                assert status == 503 and body["code"] == "unavailable" and body["message"] == SHUTTING_DOWN, body
                assert server.proc.poll() is None and not waiting.done()
            finally:
                private_redis.resume()
            assert waiting.result().view.game_id == game_id
            assert server.proc.wait(GRACE_S + 5) == 0, server.log_text()[-2000:]
    finally:
        server.stop()


def targets(first: ServerProcess, servers: list[ServerProcess]) -> str:
    """A channel target naming ``first`` and then the other instances (pick_first tries them in order)."""
    ports = [first.port] + [s.port for s in servers if s is not first]
    return "ipv4:" + ",".join(f"127.0.0.1:{port}" for port in ports)


def sigterm_and_wait(proc: ServerProcess) -> float:
    """SIGTERM the server, wait for it to exit (0), return the seconds it took."""
    assert proc.proc is not None
    started = time.monotonic()
    proc.proc.send_signal(signal.SIGTERM)
    assert proc.proc.wait(GRACE_S + 5) == 0, proc.log_text()[-2000:]
    return time.monotonic() - started


class Mover(threading.Thread):
    """Plays the game's seats' moves (Act, each with its request id) one after another over a
    round-robin channel to every instance, until stopped; the client retries UNAVAILABLE, which
    round-robin sends to an instance that is up."""

    def __init__(self, servers: list[ServerProcess], game_id: str, tokens: dict[int, str]):
        super().__init__(daemon=True)
        self.channel = grpc.insecure_channel(targets(servers[0], servers),
                                             options=[*CHANNEL_OPTIONS, ("grpc.lb_policy_name", "round_robin")])
        self.spectator = GameClient("unused", channel=self.channel, retries=8, timeout=5.0)
        self.seats = {seat: self.spectator.with_token(token) for seat, token in tokens.items()}
        self.game_id = game_id
        self.stop = threading.Event()
        self.acked = 0
        self.versions: list[tuple[int, int]] = []   # (version before, version after) of each move
        self.failures: list[BaseException] = []
        self.rng = random.Random(7)

    def run(self) -> None:
        try:
            for _ in range(2000):   # bounded: the test stops it long before
                if self.stop.is_set():
                    return
                spectator = self.spectator.get_game(self.game_id)
                if spectator.phase_name == "game_over":
                    return
                seat = self.seats[spectator.turn]
                view = seat.get_game(self.game_id)
                action = choose(view, self.rng)
                after = seat.act(view, action, request_id=f"drain-{self.acked}-{self.rng.random()}")
                self.acked += 1
                self.versions.append((view.version, after.version))
                time.sleep(0.02)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failures.append(exc)

    def close(self) -> None:
        self.stop.set()
        self.join(30)
        self.channel.close()


class Follower(threading.Thread):
    """A WatchGame stream of the Python client (``watch``) opened on one instance, resuming on
    the others: the versions it saw."""

    def __init__(self, target: str, game_id: str):
        super().__init__(daemon=True)
        self.client = GameClient(target)
        self.game_id = game_id
        self.versions: list[int] = []
        self.started = threading.Event()
        self.failures: list[BaseException] = []

    def run(self) -> None:
        try:
            for view in self.client.watch(self.game_id, reconnect_timeout=15.0):
                self.versions.append(view.version)
                self.started.set()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.failures.append(exc)

    def wait_past(self, version: int, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and (not self.versions or self.versions[-1] <= version):
            time.sleep(0.02)

    def close(self) -> None:
        self.client.close()
        self.join(10)


def test_a_rolling_restart_loses_no_move_and_no_version(redis_url, redis_prefix):
    servers = [ServerProcess(*FLAGS, redis_url=redis_url, prefix=redis_prefix, env={"LOG_LEVEL": "INFO"})
               for _ in range(3)]
    try:
        for server in servers:
            server.start()
        with servers[0].channel() as chan:
            created = create(pb_grpc.GameServiceStub(chan), "spades")
        tokens = {t.seat: t.token for t in created.seat_tokens}
        game_id = created.game_id
        mover = Mover(servers, game_id, tokens)
        mover.start()
        exits: list[float] = []
        followers: list[Follower] = []
        try:
            for victim in servers:
                follower = Follower(targets(victim, servers), game_id)
                followers.append(follower)
                follower.start()
                assert follower.started.wait(10), follower.failures
                time.sleep(0.3)   # moves go on; the stream is on the victim (first of its targets)
                exits.append(sigterm_and_wait(victim) - DRAIN_S)
                log = victim.log_text()
                at_exit = follower.versions[-1]
                victim.start()
                follower.wait_past(at_exit + 3, 15.0)   # resumed on another instance, and went on
                follower.close()
                assert any('"method": "WatchGame"' in line and '"status": "UNAVAILABLE"' in line
                           for line in log.splitlines()), "the stream was not ended by the drain"
        finally:
            mover.close()
            for follower in followers:
                follower.close()
        assert not mover.failures, mover.failures
        with servers[0].channel() as chan:
            final = pb_grpc.GameServiceStub(chan).GetGame(pb.GetGameRequest(game_id=game_id)).view
        # every move acknowledged exactly once: one version each, and nothing else changed the game
        assert mover.acked > 20
        assert all(after == before + 1 for before, after in mover.versions), mover.versions
        assert final.version == created.view.version + mover.acked
        for follower in followers:
            assert not follower.failures, follower.failures
            seen = follower.versions
            assert seen == list(range(seen[0], seen[-1] + 1)), seen   # no gap, no repeat
        print("SIGTERM to exit, less the drain (s):", [round(e, 2) for e in exits], "moves", mover.acked,
              "streams", [(f.versions[0], f.versions[-1]) for f in followers])
        assert all(e < EXIT_AFTER_CALLS_S for e in exits), exits
    finally:
        for server in servers:
            server.stop()


def _connect_watch(port: int, game_id: str, out: dict) -> None:
    """A Connect (JSON) WatchGame stream on the HTTP port: its final message, once it ends."""
    body = json.dumps({"gameId": game_id}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/cardgame.v1.GameService/WatchGame",
                                     data=b"\0" + len(body).to_bytes(4, "big") + body,
                                     headers={"content-type": "application/connect+json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        data = response.read()
    out["end"] = json.loads(data[data.rindex(b"\x02") + 5:])   # the end-of-stream message (flag 2)


@pytest.mark.parametrize("kind", ["grpc", "connect"])
def test_sigterm_ends_idle_streams_at_once_as_unavailable(redis_url, redis_prefix, kind):
    server = ServerProcess(*FLAGS, "--http-port", "0", redis_url=redis_url, prefix=redis_prefix).start()
    try:
        with server.channel() as chan:
            stub = pb_grpc.GameServiceStub(chan)
            game_id = create(stub, "spades").game_id
            out: dict = {}
            if kind == "grpc":
                stream = stub.WatchGame(pb.WatchGameRequest(game_id=game_id))
                assert next(stream).view.version >= 1
                events = stub.WatchEvents(pb.WatchEventsRequest())
                thread = None
            else:
                assert server.http_port is not None
                thread = threading.Thread(target=_connect_watch, args=(server.http_port, game_id, out), daemon=True)
                thread.start()
                time.sleep(0.5)
            took = sigterm_and_wait(server)
            assert took - DRAIN_S < EXIT_AFTER_CALLS_S, took
            if thread is None:
                for ended in (stream, events):
                    with pytest.raises(grpc.RpcError) as raised:
                        list(ended)
                    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
                    assert raised.value.details() == SHUTTING_DOWN
            else:
                thread.join(5)
                assert out["end"]["error"]["code"] == "unavailable"
                assert out["end"]["error"]["message"] == SHUTTING_DOWN
    finally:
        server.stop()
