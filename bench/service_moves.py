"""Moves per second and latency through gRPC against Redis, beside a no-op baseline, and how
moves per second scale from one worker process to two.

The no-op RPC runs on the same server stack and does only the store's read and
compare-and-set, so ``service_vs_noop_ratio`` shows what the rules, views and protobuf
conversion cost on top of the unavoidable I/O.

The workers' figures load a server started with ``--workers 1`` and then ``--workers 2``
through several connections (SO_REUSEPORT gives each connection to one worker), once every
worker listens; ``service_workers_2_vs_1_ratio`` is the second rate over the first. The load
generator shares the machine's cores with the workers and Redis, which bounds the ratio.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import statistics
import time
import uuid

import grpc

import engine
from bench.noop import METHOD as NOOP_METHOD
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from engine import Phase
from engine.core.cards import deck_text
from testkit.launcher import ServerProcess

GAMES = 64
DECKS = 20
SECONDS = float(os.environ.get("BENCH_SECONDS", "6"))
WORKER_SECONDS = float(os.environ.get("BENCH_WORKER_SECONDS", "4"))
CONNECTIONS = 8
LISTEN_TIMEOUT_S = 30.0
LATENCY_CALLS = int(os.environ.get("BENCH_LATENCY_CALLS", "3000"))


class Driver:
    """One all-human four-player Spades game, mirrored by a local engine to pick legal moves."""

    def __init__(self, stub, rng: random.Random):
        self.stub, self.rng = stub, rng

    async def start(self) -> None:
        """Create the game from known decks so the mirror knows every hand."""
        decks = [self.rng.sample(range(52), 52) for _ in range(DECKS)]
        created = await self.stub.CreateGame(pb.CreateGameRequest(
            variant=enums.VARIANT_SPADES, first_dealer=0,
            seats=[pb.SeatConfig(name=f"P{i}") for i in range(4)],
            decks=[pb.Deck(cards=deck_text(d).split()) for d in decks]))
        self.game_id = created.game_id
        self.tokens = {t.seat: [("authorization", f"Bearer {t.token}")] for t in created.seat_tokens}
        self.mirror = engine.new_game("spades", first_dealer=0, decks=decks)

    async def move(self) -> None:
        """Send one random legal move (the mirror follows); a game is replaced when it ends or
        runs out of known decks."""
        state = self.mirror
        if state.phase == Phase.GAME_OVER or (state.phase == Phase.DEAL and state.hand_no == DECKS):
            await self.start()
            state = self.mirror
        seat = state.turn if state.turn >= 0 else next(s for s in range(4) if engine.legal_actions(state, s))
        actions = [a for a in engine.legal_actions(state, seat) if a not in (engine.REVEAL, engine.DOUBLE_NIL)]
        action = self.rng.choice(actions)
        await self.stub.Act(pb.ActRequest(game_id=self.game_id, action=engine.action_name(action),
                                          request_id=uuid.uuid4().hex), metadata=self.tokens[seat])
        engine.apply(state, seat, action)


async def _rate(workers, call, seconds: float) -> float:
    count = 0
    stop = time.perf_counter() + seconds

    async def loop(worker) -> None:
        nonlocal count
        while time.perf_counter() < stop:
            await call(worker)
            count += 1

    start = time.perf_counter()
    await asyncio.gather(*(loop(w) for w in workers))
    return count / (time.perf_counter() - start)


async def _latencies(call, n: int) -> tuple[float, float]:
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - t) * 1000)
    q = statistics.quantiles(samples, n=100)
    return q[49], q[98]


async def measure(address: str) -> dict[str, float]:
    """Every figure of this benchmark against a running server."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        noop = channel.unary_unary(NOOP_METHOD)
        drivers = [Driver(stub, random.Random(i)) for i in range(GAMES)]
        await asyncio.gather(*(d.start() for d in drivers))
        await _rate(drivers, lambda d: d.move(), 1.0)  # warm up
        moves = noops = 0.0
        for _ in range(2):  # alternate, keep the best of each: the machine is shared and noisy
            moves = max(moves, await _rate(drivers, lambda d: d.move(), SECONDS / 2))
            noops = max(noops, await _rate(drivers, lambda d: noop(d.game_id.encode()), SECONDS / 2))
        one = drivers[0]
        move_p50, move_p99 = await _latencies(one.move, LATENCY_CALLS)
        noop_p50, noop_p99 = await _latencies(lambda: noop(one.game_id.encode()), LATENCY_CALLS)
    return {
        "service_moves_per_s": moves, "service_noop_per_s": noops, "service_vs_noop_ratio": moves / noops,
        "service_move_p50_ms": move_p50, "service_move_p99_ms": move_p99,
        "service_noop_p50_ms": noop_p50, "service_noop_p99_ms": noop_p99,
    }


async def moves_over_connections(address: str, connections: int, seconds: float) -> float:
    """Moves per second over GAMES concurrent games spread over ``connections`` connections."""
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(connections)]
    try:
        drivers = [Driver(pb_grpc.GameServiceStub(channels[i % connections]), random.Random(i)) for i in range(GAMES)]
        await asyncio.gather(*(d.start() for d in drivers))
        await _rate(drivers, lambda d: d.move(), 1.0)  # warm up
        return max([await _rate(drivers, lambda d: d.move(), seconds / 2) for _ in range(2)])
    finally:
        for channel in channels:
            await channel.close()


def listening_sockets(port: int) -> int:
    """How many TCP sockets listen on ``port`` on this machine (Linux: /proc/net/tcp, tcp6)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            count += state == "0A" and int(local.rsplit(":", 1)[1], 16) == port
    return count


def wait_listening(server: ServerProcess, workers: int) -> None:
    """Wait until every worker of ``server`` listens on its port."""
    deadline = time.monotonic() + LISTEN_TIMEOUT_S
    while listening_sockets(server.port) < workers:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{workers} workers did not all listen on {server.port} in {LISTEN_TIMEOUT_S} s")
        time.sleep(0.1)


def workers_figures(redis_url: str, prefix: str) -> dict[str, float]:
    """Moves per second with one worker and with two, and their ratio."""
    rates = {}
    for workers in (1, 2):
        with ServerProcess("--allow-prearranged-decks", "--workers", str(workers), redis_url=redis_url,
                           prefix=prefix) as server:
            wait_listening(server, workers)
            rates[workers] = asyncio.run(moves_over_connections(server.address, CONNECTIONS, WORKER_SECONDS))
    return {"service_moves_per_s_1_worker": rates[1], "service_moves_per_s_2_workers": rates[2],
            "service_workers_2_vs_1_ratio": rates[2] / rates[1]}


def main() -> None:
    """Start a server on Redis (REDIS_URL or 127.0.0.1:6379), measure, print, clean up."""
    gc.freeze()  # the load generator gets the same garbage-collector tuning as the server
    gc.set_threshold(50_000, 20, 20)
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    prefix = f"cardgame-bench-{uuid.uuid4().hex[:12]}"
    try:
        with ServerProcess("--handler-module", "bench.noop", "--allow-prearranged-decks", redis_url=redis_url,
                           prefix=prefix) as server:
            figures = asyncio.run(measure(server.address))
        figures.update(workers_figures(redis_url, prefix))
    finally:
        _delete_keys(redis_url, prefix)
    for name, value in figures.items():
        print(f"{name} {value:.3f}" if "ratio" in name or "_ms" in name else f"{name} {value:.0f}", flush=True)


def _delete_keys(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for i in range(0, len(keys), 500):
            client.unlink(*keys[i:i + 500])
    finally:
        client.close()


if __name__ == "__main__":
    main()
