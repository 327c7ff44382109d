"""The test mode --allow-short-deadlines: turn deadlines from 10 ms, so tests of timeouts wait
milliseconds, on a loopback server only; without it a deadline under 1 s is refused."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from cardgame.v1 import lifecycle_pb2 as lc
from service.ops.config import is_loopback
from testkit.launcher import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
BASIC = enums.PLAYER_KIND_BOT_BASIC


def create(stub, timeout_ms: int) -> pb.CreateGameResponse:
    seats = [pb.SeatConfig(name="Ann")] + [pb.SeatConfig(name=f"Bot {i}", kind=BASIC) for i in range(3)]
    return stub.CreateGame(pb.CreateGameRequest(variant_name="buck_euchre", seats=seats, first_dealer=0,
                                                lifecycle=lc.LifecycleOptions(turn_timeout_ms=timeout_ms)),
                           timeout=10)


@pytest.mark.parametrize("host,loopback", [("127.0.0.1", True), ("::1", True), ("localhost", True), ("[::1]", True),
                                           ("0.0.0.0", False), ("10.0.0.7", False), ("::", False),
                                           ("example.com", False)])
def test_only_loopback_addresses_count_as_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_the_test_mode_is_refused_on_an_address_others_can_reach():
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "ALLOW_SHORT_DEADLINES")}
    for argv, extra in ((["--allow-short-deadlines"], {}), ([], {"ALLOW_SHORT_DEADLINES": "1"})):
        result = subprocess.run([sys.executable, "-m", "service", "--host", "0.0.0.0", "--port", "0",
                                 *argv], cwd=ROOT, env={**env, **extra}, capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, result.stderr
        assert "--allow-short-deadlines is a test mode" in result.stderr and "'0.0.0.0'" in result.stderr


def test_a_deadline_under_a_second_needs_the_test_mode(redis_url, redis_prefix):
    with ServerProcess(redis_url=redis_url, prefix=redis_prefix) as proc, grpc.insecure_channel(proc.address) as ch:
        with pytest.raises(grpc.RpcError) as refused:
            create(pb_grpc.GameServiceStub(ch), 50)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "1000 to" in (refused.value.details() or "")


def test_in_the_test_mode_a_turn_times_out_in_milliseconds(redis_url, redis_prefix):
    with ServerProcess("--allow-short-deadlines", redis_url=redis_url, prefix=redis_prefix) as proc, \
            grpc.insecure_channel(proc.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            create(stub, 5)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "10 to" in (refused.value.details() or "")
        game = create(stub, 50)
        view = game.view
        assert view.HasField("turn_deadline")
        deadline = time.monotonic() + 10
        while view.seats[0].timeouts < 2:   # Ann's deal and her next turn are played by her fallback bot
            assert time.monotonic() < deadline, "the 50 ms deadlines were not played"
            time.sleep(0.05)
            view = stub.GetGame(pb.GetGameRequest(game_id=game.game_id), timeout=10).view
        assert view.version > 2
