"""Overload: answers, never silence. Bursts on one gRPC channel against a real server process and
real Redis end OK or with a retryable code and a message (never a bare CANCELLED), and with the
Python client's retry policy all end OK; a process whose Redis connections are all busy answers
RESOURCE_EXHAUSTED and stays SERVING, while a Redis that is really gone still turns health
NOT_SERVING; the HTTP port's call gate waits its turn, then refuses with RetryInfo; the limits'
flags are checked at start, and several workers without a shared store are refused."""

from __future__ import annotations

import asyncio
import collections
import os
import subprocess
import sys
import time

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from cardgame.retry import DEFAULT_RETRY_POLICY, channel_options
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from service.http.adapter import CallGate
from service.ops import config
from service.store import StoreBusy, StoreUnavailable
from service.store.redis.connection import connect, unavailable_on_error
from testkit.launcher import ROOT, ServerProcess, closed_port
from tests.conftest import SERVER_TEST_FLAGS

BURST = 3000
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED}
NO_RETRIES = [("grpc.enable_retries", 0)]
SERVING, NOT_SERVING = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING


async def _create(stub) -> str:
    """A game to read, made as a client would: a RESOURCE_EXHAUSTED answer (a pool the server's own
    work keeps busy for a moment, under a test's tiny pool) is retried, 50 times at most."""
    seats = [pb.SeatConfig(name=f"P{i}") for i in range(4)]
    for _ in range(49):
        try:
            return (await stub.CreateGame(pb.CreateGameRequest(variant_name="spades", seats=seats),
                                          timeout=10)).game_id
        except grpc.aio.AioRpcError as exc:
            if exc.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            await asyncio.sleep(0.02)
    return (await stub.CreateGame(pb.CreateGameRequest(variant_name="spades", seats=seats), timeout=10)).game_id


Outcome = tuple[grpc.StatusCode, str, grpc.aio.AioRpcError | None]


async def _burst(address: str, count: int, options: list) -> list[Outcome]:
    """``count`` GetGame calls at once on one channel: each one's code, message and error."""
    async with grpc.aio.insecure_channel(address, options=options) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        game_id = await _create(stub)

        async def one() -> Outcome:
            try:
                await stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=60)
                return grpc.StatusCode.OK, "", None
            except grpc.aio.AioRpcError as exc:
                return exc.code(), exc.details() or "", exc

        return list(await asyncio.gather(*(one() for _ in range(count))))


def _tally(results) -> collections.Counter:
    return collections.Counter(code.name for code, _, _ in results)


def _retry_info(error: grpc.aio.AioRpcError) -> error_details_pb2.RetryInfo | None:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]  # an AioRpcError has the call's parts
    for detail in status.details if status else ():
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            return info
    return None


def _reason(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def _health(address: str) -> int:
    with grpc.insecure_channel(address) as channel:
        return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status


# ---- bursts on one channel ----

async def test_a_burst_on_one_channel_is_answered_and_with_retries_all_ok(redis_url, redis_prefix):
    with ServerProcess(*SERVER_TEST_FLAGS, redis_url=redis_url, prefix=redis_prefix) as proc:
        bare = await _burst(proc.address, BURST, NO_RETRIES)
        tally = _tally(bare)
        assert tally["CANCELLED"] == 0, tally
        assert set(tally) <= {"OK"} | {code.name for code in RETRYABLE}, tally
        assert all(message for code, message, _ in bare if code is not grpc.StatusCode.OK), tally
        retried = await _burst(proc.address, BURST, channel_options(DEFAULT_RETRY_POLICY))
        assert _tally(retried) == {"OK": BURST}


async def test_calls_beyond_the_cap_are_refused_with_a_message_and_retry_info(redis_url, redis_prefix):
    """A cap of 4 calls in progress (each GetGame waits for Redis, so a burst of 3000 on a
    connection that takes 1000 at once keeps more than 4 in progress): the refusals say so and
    say when to come back."""
    flags = ("--max-concurrent-rpcs", "4", "--max-streams-per-connection", "1000")
    with ServerProcess(*SERVER_TEST_FLAGS, *flags, redis_url=redis_url, prefix=redis_prefix) as proc:
        results = await _burst(proc.address, BURST, NO_RETRIES)
        tally = _tally(results)
        assert tally["CANCELLED"] == 0 and set(tally) <= {"OK", "RESOURCE_EXHAUSTED", "UNAVAILABLE"}, tally
        refused = [error for code, _, error in results if code is grpc.StatusCode.RESOURCE_EXHAUSTED]
        assert refused, tally
        for error in refused:
            assert error is not None and "at most 4 calls at once" in (error.details() or "")
            assert _reason(error) == "CONCURRENCY_LIMIT"
            info = _retry_info(error)
            assert info is not None and 0 < info.retry_delay.ToNanoseconds() < 1_000_000_000
            assert dict(error.trailing_metadata() or ()).get("grpc-retry-pushback-ms", "").isdigit()
        assert _health(proc.address) == SERVING


# ---- the store's connection pool ----

async def test_a_busy_pool_is_resource_exhausted_and_only_a_real_store_failure_flips_health(private_redis):
    """Two Redis connections that a call waits 1 ms for: a burst finds them busy, which is
    RESOURCE_EXHAUSTED (STORE_BUSY, with RetryInfo), never UNAVAILABLE, and health stays SERVING
    through seconds of it; killing the private redis-server turns health NOT_SERVING."""
    flags = ("--redis-max-connections", "2", "--redis-pool-wait", "0.001")
    with ServerProcess(*SERVER_TEST_FLAGS, *flags, redis_url=private_redis.url, prefix="overload") as proc:
        busy: list[grpc.aio.AioRpcError] = []
        statuses = []
        deadline = time.monotonic() + 3.5   # longer than the health monitor's two failed pings
        while time.monotonic() < deadline:
            results = await _burst(proc.address, 600, NO_RETRIES)
            tally = _tally(results)
            assert set(tally) <= {"OK", "RESOURCE_EXHAUSTED"}, tally
            busy += [error for code, _, error in results if error is not None]
            statuses.append(await asyncio.to_thread(_health, proc.address))
        assert busy, "the pool was never found busy"
        for error in busy[:50]:
            assert "the store's connections are all busy" in (error.details() or "")
            assert _reason(error) == "STORE_BUSY" and _retry_info(error) is not None
        assert set(statuses) == {SERVING}
        assert "game store ping failed" not in proc.log_text()
        private_redis.stop()
        deadline = time.monotonic() + 10
        while await asyncio.to_thread(_health, proc.address) != NOT_SERVING:
            assert time.monotonic() < deadline, "health stayed SERVING with its store gone"
            await asyncio.sleep(0.1)
        async with grpc.aio.insecure_channel(proc.address, options=NO_RETRIES) as channel:
            with pytest.raises(grpc.aio.AioRpcError) as gone:
                await pb_grpc.GameServiceStub(channel).GetGame(pb.GetGameRequest(game_id="0" * 24), timeout=10)
        assert gone.value.code() is grpc.StatusCode.UNAVAILABLE
        assert "the game store is unavailable" in (gone.value.details() or "")


async def test_a_full_pool_is_store_busy_and_a_dead_server_is_store_unavailable(redis_url, redis_prefix):
    """One connection, a 10 ms wait: while a BLPOP holds it, a PING is StoreBusy; a server that is
    not there is StoreUnavailable and not StoreBusy."""
    client = connect(redis_url, max_connections=1, pool_wait_s=0.01)
    try:
        holder = asyncio.ensure_future(client.blpop([f"{redis_prefix}:nothing"], timeout=0.5))
        await asyncio.sleep(0.05)
        with pytest.raises(StoreBusy), unavailable_on_error("ping"):
            await client.ping()
        await holder
        with unavailable_on_error("ping"):
            assert await client.ping()
    finally:
        await client.aclose()
    with closed_port() as port:
        dead = connect(f"redis://127.0.0.1:{port}/0", max_connections=1, pool_wait_s=0.01)
        try:
            with pytest.raises(StoreUnavailable) as refused, unavailable_on_error("ping"):
                await dead.ping()
            assert not isinstance(refused.value, StoreBusy)
        finally:
            await dead.aclose()


# ---- the HTTP port's gate ----

async def test_the_http_gate_waits_its_turn_first_come_first_served_then_refuses_with_retry_info():
    gate = CallGate(1, wait_s=0.2)
    order: list[int] = []

    async def call(i: int, hold_s: float) -> None:
        async with gate.admit():
            order.append(i)
            await asyncio.sleep(hold_s)

    await asyncio.gather(call(0, 0.05), call(1, 0.05), call(2, 0.0))
    assert order == [0, 1, 2] and gate.active == 0
    first = asyncio.ensure_future(call(3, 3.0))   # holds the slot well past the refusal
    await asyncio.sleep(0.01)
    started = time.monotonic()
    with pytest.raises(ConnectError) as refused:
        await call(4, 0.0)
    assert 0.15 < time.monotonic() - started < 2.5   # refused after its wait, not when the slot came free
    assert refused.value.code is Code.RESOURCE_EXHAUSTED and "at most 1 calls at once" in refused.value.message
    assert [d.type_name for d in refused.value.details] == ["google.rpc.RetryInfo"]
    await first
    assert gate.active == 0 and not gate._waiters


async def test_a_cancelled_waiter_passes_its_slot_on():
    gate = CallGate(1, wait_s=5.0)
    holder_done = asyncio.Event()

    async def hold() -> None:
        async with gate.admit():
            await holder_done.wait()

    async def quick() -> str:
        async with gate.admit():
            return "ran"

    holder = asyncio.ensure_future(hold())
    await asyncio.sleep(0)
    leaver, stayer = asyncio.ensure_future(quick()), asyncio.ensure_future(quick())
    await asyncio.sleep(0.01)
    leaver.cancel()
    holder_done.set()
    assert await asyncio.wait_for(stayer, 2) == "ran"
    await holder
    assert gate.active == 0


# ---- flags checked at start ----

@pytest.mark.parametrize("argv,message", [
    (["--max-streams-per-connection", "100"], "--max-streams-per-connection (100) must be above "
                                              "--max-watches-per-connection (100)"),
    (["--max-streams-per-connection", "0"], "--max-streams-per-connection must be at least 1"),
    (["--redis-pool-wait", "0"], "--redis-pool-wait must be above 0"),
    (["--http-call-wait", "61"], "--http-call-wait must be above 0 and at most 60"),
    (["--http-max-calls", "-1"], "--http-max-calls must be 0 (automatic) or more"),
    (["--redis-url", "redis://127.0.0.1:6379/0", "--redis-max-connections", "8", "--http-max-calls", "8"],
     "--http-max-calls (8) must be below --redis-max-connections (8)"),
    (["--workers", "4"], "--workers 4 needs a shared store"),
])
def test_limits_are_checked_at_start(argv, message, capsys, monkeypatch):
    monkeypatch.delenv("WORKERS", raising=False)
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(SystemExit):
        config.parse(argv)
    assert message in capsys.readouterr().err


def test_http_calls_stay_below_the_redis_pool(monkeypatch):
    monkeypatch.delenv("HTTP_MAX_CALLS", raising=False)
    parsed = config.parse(["--redis-url", "redis://127.0.0.1:6379/0", "--redis-max-connections", "64"])
    assert parsed.http_max_calls == 48 and parsed.max_streams_per_connection == 200   # 3/4 of the 64 connections
    assert config.parse(["--max-concurrent-rpcs", "300"]).http_max_calls == 300  # the memory store: no pool


def test_several_workers_without_a_shared_store_are_refused_at_start():
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "WORKERS")}
    for argv, extra in ((["--workers", "3"], {}), ([], {"WORKERS": "2"})):
        result = subprocess.run([sys.executable, "-m", "service", "--host", "127.0.0.1", "--port", "0", *argv],
                                cwd=ROOT, env={**env, **extra}, capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, result.stderr
        assert "needs a shared store" in result.stderr and "set REDIS_URL" in result.stderr, result.stderr
