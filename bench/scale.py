"""`make bench-scale`: moves per second with 1, 2 and 4 server processes on one Redis, and with
2 processes on a three-master Redis Cluster, and where the CPU went in each run.

Every run starts its own redis-server (or cluster) on free loopback ports and its own server
processes (``python -m service``, one worker each, each on its own port, as instances behind a
load balancer), then loads them for ``SCALE_SECONDS`` with ``LOADERS`` load-generator processes.
Each generator plays ``GAMES`` scripted games (``bench.service_moves.Script``: the moves are
worked out before the clock starts, so a generator spends a move on the gRPC call alone), spread
evenly over the servers, one move in flight per game.

Printed, per run (``<run>`` is ``1proc``, ``2proc``, ``4proc``, ``cluster_2proc``):

- ``scale_moves_per_s_<run>``: moves answered per second, summed over the generators;
- ``scale_ratio_to_linear_<run>``: that rate over N times the one-process rate;
- ``scale_cores_<part>_<run>`` for ``generator``, ``servers`` and ``redis``: the CPU each part
  used over the window, in cores (CPU seconds per second: 1.0 is one core busy all along), from
  the processes' own counters (psutil) and Redis' ``INFO cpu``; ``scale_cores_others_<run>``
  what every other process of the machine used meanwhile (a shared machine's neighbours), and
  ``scale_cores_idle_<run>`` what was left idle;
- ``scale_server_cpu_us_per_move_<run>`` and ``scale_redis_cpu_us_per_move_<run>``;

and ``scale_cpus``, the cores this machine lets the benchmark use. On a machine with few cores
all three parts share them: the ceiling is the CPU, and the cores figures say who holds it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import grpc
import psutil
import redis

from bench import service_moves
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess
from testkit.redis_server import PrivateRedis, PrivateRedisCluster

SECONDS = float(os.environ.get("SCALE_SECONDS", "8"))
LOADERS = int(os.environ.get("SCALE_LOADERS", "2"))
GAMES = 64                 # per load generator
SETUP_S = 20.0             # what a generator may take to work its scripts out and create its games
RUNS = (("1proc", 1, False), ("2proc", 2, False), ("4proc", 4, False), ("cluster_2proc", 2, True))


def load(addresses: list[str], first: int, start_at: float, seconds: float) -> tuple[int, float, float]:
    """One load generator (run in its own process): GAMES scripted games spread over the
    servers, moved from wall-clock ``start_at`` for ``seconds``; (moves, window seconds, CPU
    seconds this process used in the window)."""
    service_moves.tune_gc()
    return asyncio.run(_load(addresses, first, start_at, seconds))


async def _load(addresses: list[str], first: int, start_at: float, seconds: float) -> tuple[int, float, float]:
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for address in addresses]
    try:
        drivers = [service_moves.Driver(pb_grpc.GameServiceStub(channels[i % len(channels)]), first + i)
                   for i in range(GAMES)]
        await asyncio.gather(*(d.start() for d in drivers))
        await asyncio.gather(*(d.move() for d in drivers))   # every connection up, every game moved once
        await asyncio.sleep(max(start_at - time.time(), 0))
        counted: list[int] = []
        cpu = time.process_time()
        began = time.perf_counter()
        await service_moves._rate(drivers, lambda d: d.move(), seconds, counted)
        return counted[0], time.perf_counter() - began, time.process_time() - cpu
    finally:
        for channel in channels:
            await channel.close()


@contextmanager
def redis_for(cluster: bool) -> Iterator[tuple[str, list[redis.Redis]]]:
    """A private Redis (or a three-master cluster): its URL and a client of each node."""
    with ExitStack() as stack:
        if cluster:
            nodes = stack.enter_context(PrivateRedisCluster())
            ports = nodes.ports
        else:
            single = stack.enter_context(PrivateRedis())
            nodes, ports = single, [single.port]
        clients = [redis.Redis(port=port) for port in ports]
        for client in clients:
            stack.callback(client.close)
        yield nodes.url, clients


def redis_cpu(clients: list[redis.Redis]) -> float:
    """CPU seconds the Redis nodes have used so far (``INFO cpu``, user + system)."""
    total = 0.0
    for client in clients:
        cpu = client.info("cpu")
        total += float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])
    return total


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy so far (every process, ours or not)."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def run(name: str, processes: int, cluster: bool) -> dict[str, float]:
    """One run: its Redis, its servers, LOADERS generators for SECONDS; its figures."""
    flags = [service_moves.SEEDED, *(["--redis-cluster"] if cluster else [])]
    with redis_for(cluster) as (url, clients), ExitStack() as stack:
        servers = [stack.enter_context(ServerProcess(*flags, redis_url=url, prefix="scale"))
                   for _ in range(processes)]
        addresses = [server.address for server in servers]
        pids = [server.proc.pid for server in servers if server.proc is not None]
        start_at = time.time() + SETUP_S
        context = multiprocessing.get_context("spawn")
        with context.Pool(LOADERS) as pool:
            pending = [pool.apply_async(load, (addresses, k * GAMES, start_at, SECONDS)) for k in range(LOADERS)]
            time.sleep(max(start_at - time.time(), 0))
            servers_cpu, redis_before, busy = service_moves.cpu_seconds(pids), redis_cpu(clients), machine_busy()
            began = time.perf_counter()
            time.sleep(SECONDS)
            servers_cpu = service_moves.cpu_seconds(pids) - servers_cpu
            redis_used = redis_cpu(clients) - redis_before
            busy = machine_busy() - busy
            window = time.perf_counter() - began
            results = [each.get(timeout=SETUP_S + SECONDS + 30) for each in pending]
    moves = sum(count for count, _, _ in results)
    rate = sum(count / seconds for count, seconds, _ in results)
    generator = sum(cpu for _, _, cpu in results) / window
    cores = len(os.sched_getaffinity(0))
    used = {"generator": generator, "servers": servers_cpu / window, "redis": redis_used / window}
    figures = {f"scale_moves_per_s_{name}": rate}
    figures.update({f"scale_cores_{part}_{name}": value for part, value in used.items()})
    figures[f"scale_cores_others_{name}"] = max(busy / window - sum(used.values()), 0.0)
    figures[f"scale_cores_idle_{name}"] = max(cores - busy / window, 0.0)
    figures[f"scale_server_cpu_us_per_move_{name}"] = servers_cpu * 1e6 / moves
    figures[f"scale_redis_cpu_us_per_move_{name}"] = redis_used * 1e6 / moves
    return figures


def main() -> None:
    """Every run, one after the other; the figures as ``name value`` lines."""
    figures: dict[str, float] = {"scale_cpus": len(os.sched_getaffinity(0))}
    rates: dict[str, float] = {}
    for name, processes, cluster in RUNS:
        found = run(name, processes, cluster)
        rates[name] = found[f"scale_moves_per_s_{name}"]
        if processes > 1:
            found[f"scale_ratio_to_linear_{name}"] = rates[name] / (processes * rates["1proc"])
        figures.update(found)
        show(found)
    print(f"scale_cpus {figures['scale_cpus']:.0f}", flush=True)


def show(figures: dict[str, float]) -> None:
    """``name value`` lines: rates and CPU per move rounded, ratios and cores with decimals."""
    for name, value in figures.items():
        print(f"{name} {value:.3f}" if "ratio" in name or "cores" in name else f"{name} {value:.0f}", flush=True)


if __name__ == "__main__":
    main()
