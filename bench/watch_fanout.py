"""How long one move takes to reach 2,000 spectators of one game.

A server on Redis (its stream caps raised for the run) holds WATCHERS spectator WatchGame
streams of one two-player Spades game over CONNECTIONS connections; a seat then makes MOVES
moves one after the other. ``watch_fanout_ms`` is the median, over the moves, of the time from
sending the move to the last stream receiving its version (the move's commit included);
``watch_fanout_p99_stream_ms`` is the 99th percentile stream of the slowest move. The load
generator shares the machine's cores with the server and Redis, so the figures are upper bounds.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
import uuid

import grpc

from bench.redis_target import redis_target
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess

WATCHERS = int(os.environ.get("BENCH_WATCHERS", "2000"))
CONNECTIONS = 100
OPEN_BATCH = 100
MOVES = int(os.environ.get("BENCH_WATCH_MOVES", "8"))
READY_TIMEOUT_S = 60.0


async def measure(address: str) -> dict[str, float]:
    """Open the streams, make the moves, and time each move's arrival at every stream."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(address, options=options) for _ in range(CONNECTIONS)]
    try:
        stub = pb_grpc.GameServiceStub(channels[0])
        created = await stub.CreateGame(pb.CreateGameRequest(
            variant_name="spades2", first_dealer=0, seats=[pb.SeatConfig(name="A"), pb.SeatConfig(name="B")]))
        game_id, tokens = created.game_id, {t.seat: t.token for t in created.seat_tokens}
        arrivals: dict[int, list[float]] = {}
        ready = asyncio.Semaphore(0)

        async def watch(channel) -> None:
            call = pb_grpc.GameServiceStub(channel).WatchGame(pb.WatchGameRequest(game_id=game_id))
            first = True
            async for message in call:
                if first:
                    first = False
                    ready.release()
                    continue
                arrivals.setdefault(message.view.version, []).append(time.perf_counter())

        tasks = []
        deadline = time.monotonic() + READY_TIMEOUT_S
        for start in range(0, WATCHERS, OPEN_BATCH):   # opened a batch at a time, as clients arrive
            batch = range(start, min(start + OPEN_BATCH, WATCHERS))
            tasks += [asyncio.create_task(watch(channels[i % CONNECTIONS])) for i in batch]
            for _ in batch:
                await asyncio.wait_for(ready.acquire(), max(0.1, deadline - time.monotonic()))
        spans, slowest = [], [0.0]
        for _ in range(MOVES):
            view = (await stub.GetGame(pb.GetGameRequest(game_id=game_id),
                                       metadata=[("authorization", f"Bearer {tokens[0]}")])).view
            seat = view.turn if view.HasField("turn") else 0
            seat_view = (await stub.GetGame(pb.GetGameRequest(game_id=game_id),
                                            metadata=[("authorization", f"Bearer {tokens[seat]}")])).view
            action = seat_view.legal_actions[0].notation
            sent = time.perf_counter()
            answer = await stub.Act(pb.ActRequest(game_id=game_id, action=action, request_id=uuid.uuid4().hex),
                                    metadata=[("authorization", f"Bearer {tokens[seat]}")])
            version = answer.view.version
            move_deadline = time.monotonic() + 30
            while len(arrivals.get(version, ())) < WATCHERS and time.monotonic() < move_deadline:
                await asyncio.sleep(0.005)
            times = sorted(t - sent for t in arrivals.get(version, ()))
            if len(times) < WATCHERS:
                raise RuntimeError(f"only {len(times)} of {WATCHERS} streams saw version {version}")
            spans.append(times[-1] * 1000)
            if times[-1] * 1000 >= max(spans):
                slowest = times
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return {"watch_fanout_ms": statistics.median(spans),
                "watch_fanout_p99_stream_ms": slowest[int(len(slowest) * 0.99) - 1] * 1000,
                "watch_fanout_streams": float(WATCHERS)}
    finally:
        for channel in channels:
            await channel.close()


def server_flags() -> tuple[str, ...]:
    """The server's stream caps, above what WATCHERS streams on one connection need."""
    caps = str(WATCHERS + 100)
    return ("--max-concurrent-rpcs", str(2 * WATCHERS + 400), "--max-streams", caps,
            "--max-watches-per-connection", caps, "--max-streams-per-connection", str(WATCHERS + 200),
            "--max-streams-per-address", caps, "--max-watchers-per-game", caps)


def main() -> None:
    """Start a server on Redis (``bench.redis_target``), measure, print, clean up."""
    with redis_target() as (redis_url, prefix), \
            ServerProcess(*server_flags(), redis_url=redis_url, prefix=prefix) as server:
        figures = asyncio.run(measure(server.address))
    for name, value in figures.items():
        print(f"{name} {value:.3f}" if "_ms" in name else f"{name} {value:.0f}", flush=True)


if __name__ == "__main__":
    main()
