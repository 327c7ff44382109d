"""What an idle fleet costs Redis, and how late deadlines are played when an instance dies.

Real server processes (``testkit.launcher``) run against a private redis-server on a free
loopback port (REDIS_URL instead when no redis-server is installed: its counters then include
every other client), each with its own key prefix. Commands are Redis' own counters: the calls of
``INFO commandstats`` summed over every command but INFO itself, before and after a window.

- ``redis_idle_commands_per_s_per_process_1`` / ``_4``: commands a second Redis receives per
  server process, with 1 and with 4 processes and no games (the sweepers' lease renewals, the
  pub/sub liveness PINGs, the store health checks).
- ``redis_idle_commands_per_s_watch_1`` / ``_watch_500``: commands a second from one process
  holding 1 and 500 idle WatchEvents streams (everything that process sends, sweeper included).
- ``redis_idle_commands_per_s_games_200`` / ``_watchgame_200``: one process (alone, with a key
  prefix of its own) with 200 games of no moves, and then with an idle WatchGame stream on each:
  the first is the listing index's sweep of the games, the difference each game's feed checking
  every ``WATCH_CHECK_S`` that its game still exists (each over a window of ``WINDOW_S``, which
  holds two of those checks and two index sweeps).
- ``sweep_lag_killed_p99_ms`` (and ``_median_ms``, ``_max_ms``, ``sweep_lag_killed_timeouts``): how
  long after its deadline a turn was played by the fallback bot, over every deadline of GAMES
  games with a 1 s turn timeout, played by 3 processes of which one is SIGKILLed a third of the
  way into the run (``bench.lifecycle``'s ``sweep_lag_p99_ms`` is one server's lag under a burst of
  1,000 deadlines); ``sweep_takeover_ms``: from that kill until no shard is leased to the dead
  process any more, and ``sweep_killed_shards``, how many it held.
The load generator shares the machine's cores with the servers and Redis: figures are upper bounds.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import statistics
import time
import uuid
from contextlib import ExitStack

import grpc
import redis

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess
from testkit.redis_server import PrivateRedis

WINDOW_S = float(os.environ.get("BENCH_IDLE_WINDOW_S", "60"))   # an idle count: a sweeper's renewal period
WATCH_WINDOW_S = WINDOW_S / 3
SETTLE_S = 3.0          # after a start or a change, before counting (leases settle within a heartbeat)
WATCHERS = 500
WATCHED_GAMES = 200
GAMES = int(os.environ.get("BENCH_IDLE_GAMES", "24"))
LAG_RUN_S = float(os.environ.get("BENCH_IDLE_LAG_S", "18"))
TURN_TIMEOUT_MS = 1000
BOT = 3  # PLAYER_KIND_BOT_BASIC
STREAM_FLAGS = ("--max-streams", "700", "--max-streams-per-address", "700", "--max-watches-per-connection", "700",
                "--max-streams-per-connection", "1000", "--max-concurrent-rpcs", "1600")


def commands(client: redis.Redis) -> int:
    """Every command Redis has run (INFO commandstats), INFO itself left out."""
    stats = client.info("commandstats")
    return sum(int(row["calls"]) for name, row in stats.items() if name != "cmdstat_info")


def per_second(client: redis.Redis, window_s: float = WINDOW_S) -> float:
    """Commands a second Redis runs over a window."""
    before = commands(client)
    time.sleep(window_s)
    return (commands(client) - before) / window_s


def events_stream(stub, index: int):
    """A WatchEvents stream of the open owner."""
    return stub.WatchEvents(pb.WatchEventsRequest())


async def _hold_streams(address: str, count: int, opened: asyncio.Event, stop: asyncio.Event,
                        open_stream=events_stream) -> None:
    """Open ``count`` streams (``open_stream(stub, i)``, over a few connections), hold them until ``stop``."""
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(max(1, count // 100))]
    calls = [open_stream(pb_grpc.GameServiceStub(channels[i % len(channels)]), i) for i in range(count)]
    try:
        for call in calls:   # each gets its first message (the one event there is, a game's view), then idles
            await asyncio.wait_for(call.read(), 30)
        opened.set()
        await stop.wait()
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()


def one_event(address: str) -> None:
    """Put one event in the open owner's stream (a game created and deleted), so that a stream
    opened from the start answers at once and then idles."""
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        created = stub.CreateGame(pb.CreateGameRequest(variant_name="spades2", seats=[pb.SeatConfig(name="A"),
                                                                                       pb.SeatConfig(name="B")]),
                                  timeout=10)
        stub.DeleteGame(pb.DeleteGameRequest(game_id=created.game_id), timeout=10)


def watch_cost(client: redis.Redis, address: str, count: int, open_stream=events_stream,
               window_s: float = WATCH_WINDOW_S) -> float:
    """Commands a second while one process holds ``count`` idle streams (WatchEvents by default)."""
    async def run() -> float:
        opened, stop = asyncio.Event(), asyncio.Event()
        holder = asyncio.create_task(_hold_streams(address, count, opened, stop, open_stream))
        await asyncio.wait_for(opened.wait(), 60)
        await asyncio.sleep(SETTLE_S)
        figure = await asyncio.to_thread(per_second, client, window_s)
        stop.set()
        await holder
        return figure

    return asyncio.run(run())


def game_streams(address: str, count: int):
    """``count`` new games with no moves, and a function opening a spectator's WatchGame stream
    on the i-th of them."""
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        ids = [stub.CreateGame(pb.CreateGameRequest(variant_name="spades2", seats=[pb.SeatConfig(name="A"),
                                                                                   pb.SeatConfig(name="B")]),
                               timeout=10).game_id for _ in range(count)]
    return lambda stub, index: stub.WatchGame(pb.WatchGameRequest(game_id=ids[index]))


def _create_games(address: str, count: int) -> list[str]:
    """Games with one human seat on a 1 s turn timeout, dealt, left to the clock."""
    ids = []
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        for _ in range(count):
            seats = [pb.SeatConfig(name="you")] + [pb.SeatConfig(name="bot", kind=BOT)] * 3
            request = pb.CreateGameRequest(variant_name="buck_euchre", first_dealer=0, seats=seats)
            request.lifecycle.turn_timeout_ms = TURN_TIMEOUT_MS
            request.lifecycle.timeouts_before_away = 100
            ids.append(stub.CreateGame(request, timeout=10).game_id)
    return ids


def _leased_to(client: redis.Redis, prefix: str, pid: int) -> list[int]:
    """The shards whose lease names the process ``pid`` (sweeper names read host-pid-random)."""
    leases = client.hgetall(f"{prefix}:sweepers:{{sweep}}:leases")
    return sorted(int(shard) for shard, who in leases.items() if f"-{pid}-" in who.decode())


def sweep_lag(client: redis.Redis, prefix: str, servers: list[ServerProcess]) -> dict[str, float]:
    """Deadlines falling due on 3 processes, one SIGKILLed mid-run: the lag of each timeout."""
    started = time.time() * 1000
    games = set(_create_games(servers[0].address, GAMES))
    time.sleep(LAG_RUN_S / 3)
    victim = servers[-1]
    assert victim.proc is not None
    held = _leased_to(client, prefix, victim.proc.pid)
    killed = time.monotonic()
    victim.proc.send_signal(signal.SIGKILL)
    victim.proc.wait(10)
    takeover = None
    while time.monotonic() - killed < LAG_RUN_S:
        if takeover is None and not _leased_to(client, prefix, victim.proc.pid):
            takeover = (time.monotonic() - killed) * 1000
        if time.monotonic() - killed >= LAG_RUN_S * 2 / 3 and takeover is not None:
            break
        time.sleep(0.02)
    ended = time.time() * 1000
    lags = []
    for _, fields in client.xrange(f"{prefix}:events:{{_open}}"):
        body = json.loads(fields[b"e"].split(b" ", 1)[1])
        if body.get("k") == "timeout" and body["g"] in games and started < body["deadline"] < ended - 2000:
            lags.append(body["t"] - body["deadline"])
    if not lags:
        raise RuntimeError("no turn timed out during the run")
    lags.sort()
    return {"sweep_lag_killed_p99_ms": lags[max(0, int(len(lags) * 0.99) - 1)],
            "sweep_lag_killed_median_ms": statistics.median(lags), "sweep_lag_killed_max_ms": lags[-1],
            "sweep_lag_killed_timeouts": float(len(lags)), "sweep_killed_shards": float(len(held)),
            "sweep_takeover_ms": takeover if takeover is not None else float("nan")}


def measure(url: str) -> dict[str, float]:
    """Every figure, each phase bounded in time."""
    prefix = f"cardgame-idle-{uuid.uuid4().hex[:10]}"
    client = redis.Redis.from_url(url, socket_timeout=10)
    figures: dict[str, float] = {}
    with ExitStack() as stack:
        servers = [stack.enter_context(ServerProcess(*STREAM_FLAGS, redis_url=url, prefix=prefix))]
        time.sleep(SETTLE_S)
        figures["redis_idle_commands_per_s_per_process_1"] = per_second(client)
        one_event(servers[0].address)
        figures["redis_idle_commands_per_s_watch_1"] = watch_cost(client, servers[0].address, 1)
        figures[f"redis_idle_commands_per_s_watch_{WATCHERS}"] = watch_cost(client, servers[0].address, WATCHERS)
        servers += [stack.enter_context(ServerProcess(redis_url=url, prefix=prefix)) for _ in range(3)]
        time.sleep(SETTLE_S)
        figures["redis_idle_commands_per_s_per_process_4"] = per_second(client) / 4
        servers.pop(1).stop()
        figures.update(sweep_lag(client, prefix, servers))
    # Games of their own (another prefix), once every other server is gone: the games alone (the
    # index sweep visits them), then each with a WatchGame stream.
    with ServerProcess(*STREAM_FLAGS, redis_url=url, prefix=f"{prefix}-watched") as server:
        opener = game_streams(server.address, WATCHED_GAMES)
        time.sleep(SETTLE_S)
        figures[f"redis_idle_commands_per_s_games_{WATCHED_GAMES}"] = per_second(client)
        figures[f"redis_idle_commands_per_s_watchgame_{WATCHED_GAMES}"] = watch_cost(
            client, server.address, WATCHED_GAMES, opener, WINDOW_S)
    for key in client.scan_iter(match=f"{prefix}*", count=1000):
        client.unlink(key)
    client.close()
    return figures


def main() -> None:
    """Measure on a private redis-server (REDIS_URL when none is installed), print the figures."""
    if shutil.which("redis-server"):
        with PrivateRedis() as server:
            figures = measure(server.url)
    else:
        print("# no redis-server installed: counting on REDIS_URL, other clients included", flush=True)
        figures = measure(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    for name, value in figures.items():
        print(f"{name} {value:.3f}" if "_ms" in name or "per_s" in name else f"{name} {value:.0f}", flush=True)


if __name__ == "__main__":
    main()
