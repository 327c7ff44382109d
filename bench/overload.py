"""What a server answers under overload: counts of each answer, never timings to assert.

- A burst of BURST concurrent GetGame calls on one gRPC channel, without and then with the Python
  client's retry policy (cardgame.retry): ``overload_burst_<code>`` counts the answers without
  retries (CANCELLED included, which must stay 0), ``overload_burst_retried_ok`` those that
  ended OK with them.
- HTTP_CLIENTS keep-alive HTTP/1.1 connections to one server process's HTTP port, each sending a
  Connect GetGame once a second for HTTP_SECONDS: ``overload_http_<answer>`` counts the answers
  (ok, resource_exhausted, unavailable, …), ``overload_http_p99_ms`` their 99th percentile
  latency, and ``overload_health_not_serving`` the health checks (polled every 0.25 s meanwhile)
  that did not say SERVING: a busy process must not look like one whose store is down.

The load generator shares the machine's cores with the server and Redis. Loopback only.
BENCH_OVERLOAD_FLAGS adds server flags (e.g. "--http-max-calls 32"), BENCH_OVERLOAD_SKIP_BURST=1
leaves the bursts out, BENCH_OVERLOAD_HTTP_CLIENTS / _HTTP_SECONDS / _BURST size the load.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import random
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.redis_target import redis_target
from cardgame.retry import DEFAULT_RETRY_POLICY, channel_options
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess

BURST = int(os.environ.get("BENCH_OVERLOAD_BURST", "3000"))
HTTP_CLIENTS = int(os.environ.get("BENCH_OVERLOAD_HTTP_CLIENTS", "1000"))
HTTP_SECONDS = float(os.environ.get("BENCH_OVERLOAD_HTTP_SECONDS", "10"))
CALL_TIMEOUT_S = 30.0
SERVER_FLAGS = os.environ.get("BENCH_OVERLOAD_FLAGS", "").split()  # e.g. "--http-max-calls 32"
SKIP_BURST = os.environ.get("BENCH_OVERLOAD_SKIP_BURST") == "1"


async def _game(stub) -> str:
    seats = [pb.SeatConfig(name=f"P{i}") for i in range(4)]
    return (await stub.CreateGame(pb.CreateGameRequest(variant_name="spades", seats=seats), timeout=10)).game_id


async def _burst(address: str, options: list) -> collections.Counter:
    async with grpc.aio.insecure_channel(address, options=options) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        game_id = await _game(stub)

        async def one() -> str:
            try:
                await stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=CALL_TIMEOUT_S)
                return "OK"
            except grpc.aio.AioRpcError as exc:
                return exc.code().name

        return collections.Counter(await asyncio.gather(*(one() for _ in range(BURST))))


async def _body(reader: asyncio.StreamReader, head: bytes) -> bytes:
    """A response's body after its ``head``: by content-length, or chunk by chunk."""
    headers = dict(line.lower().split(b":", 1) for line in head.split(b"\r\n")[1:] if b":" in line)
    if b"content-length" in headers:
        return await reader.readexactly(int(headers[b"content-length"]))
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        body += (await reader.readexactly(size + 2))[:-2]
        if size == 0:
            return body


async def _http_client(port: int, body: bytes, until: float, answers: collections.Counter,
                       latencies: list[float]) -> None:
    """One keep-alive connection sending GetGame once a second until ``until``."""
    await asyncio.sleep(random.random())  # spread the clients over the second
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        answers["connect_failed"] += 1
        return
    request = (f"POST /cardgame.v1.GameService/GetGame HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n"
               f"content-type: application/json\r\nconnect-protocol-version: 1\r\n"
               f"content-length: {len(body)}\r\n\r\n").encode() + body
    try:
        while time.monotonic() < until:
            sent = time.monotonic()
            writer.write(request)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), CALL_TIMEOUT_S)
            payload = await _body(reader, head)
            latencies.append(time.monotonic() - sent)
            status = int(head.split(b" ", 2)[1])
            answers["ok" if status == 200 else json.loads(payload).get("code", f"http_{status}")] += 1
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - sent)))
    except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
        answers[f"broken_{type(exc).__name__}"] += 1
    finally:
        writer.close()


async def _health_polls(address: str, until: float) -> collections.Counter:
    polls: collections.Counter = collections.Counter()
    async with grpc.aio.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < until:
            try:
                reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=5)
                polls[health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)] += 1
            except grpc.aio.AioRpcError as exc:
                polls[exc.code().name] += 1
            await asyncio.sleep(0.25)
    return polls


async def _http_load(address: str, port: int) -> tuple[collections.Counter, list[float], collections.Counter]:
    async with grpc.aio.insecure_channel(address) as channel:
        game_id = await _game(pb_grpc.GameServiceStub(channel))
    body = json.dumps({"gameId": game_id}).encode()
    answers: collections.Counter = collections.Counter()
    latencies: list[float] = []
    until = time.monotonic() + HTTP_SECONDS
    health = asyncio.ensure_future(_health_polls(address, until))
    await asyncio.gather(*(_http_client(port, body, until, answers, latencies) for _ in range(HTTP_CLIENTS)))
    return answers, latencies, await health


def main() -> None:
    with redis_target() as (redis_url, prefix):
        with ServerProcess("--http-port", "0", *SERVER_FLAGS, redis_url=redis_url, prefix=prefix) as server:
            if not SKIP_BURST:
                bare = asyncio.run(_burst(server.address, [("grpc.enable_retries", 0)]))
                for code in sorted(set(bare) | {"OK", "CANCELLED"}):
                    print(f"overload_burst_{code.lower()} {bare[code]}")
                retried = asyncio.run(_burst(server.address, channel_options(DEFAULT_RETRY_POLICY)))
                print(f"overload_burst_retried_ok {retried['OK']}")
            answers, latencies, health = asyncio.run(_http_load(server.address, server.http_port))
            for answer in sorted(set(answers) | {"ok", "resource_exhausted", "unavailable"}):
                print(f"overload_http_{answer} {answers[answer]}")
            latencies.sort()
            p99 = latencies[int(len(latencies) * 0.99)] * 1000 if latencies else 0.0
            print(f"overload_http_p99_ms {p99:.1f}")
            print(f"overload_health_not_serving {sum(n for status, n in health.items() if status != 'SERVING')}")


if __name__ == "__main__":
    main()
