"""A flame graph of the move path: py-spy samples a server while `make bench`'s scripted load
plays moves on it.

    .venv/bin/python -m bench.profile_moves [output.svg]     # docs/flamegraph-move.svg by default

The server runs on Redis (REDIS_URL or 127.0.0.1:6379, under a key prefix of its own, removed
afterwards) with its production defaults; py-spy (a sampling profiler, in requirements-dev.txt)
attaches to it by pid once the games are under way, for ``PROFILE_SECONDS`` (15). Attaching to
another process needs ptrace permission (root, or kernel.yama.ptrace_scope 0). Printed:
``profile_moves_per_s`` and ``profile_server_cpu_us_per_move`` over the sampled window (py-spy's
sampling costs the server some CPU: these run a little above `make bench`'s).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import grpc

from bench import service_moves
from bench.redis_target import redis_target
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ROOT, ServerProcess

SECONDS = int(os.environ.get("PROFILE_SECONDS", "15"))
RATE = 100   # samples per second
PY_SPY = Path(sys.executable).with_name("py-spy")


async def profile(server: ServerProcess, output: Path) -> dict[str, float]:
    """Load the server with scripted games; sample it with py-spy meanwhile."""
    assert server.proc is not None
    async with grpc.aio.insecure_channel(server.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        drivers = [service_moves.Driver(stub, i) for i in range(service_moves.GAMES)]
        await asyncio.gather(*(d.start() for d in drivers))
        await service_moves._rate(drivers, lambda d: d.move(), 1.0)  # warm up
        spy = subprocess.Popen([str(PY_SPY), "record", "--output", str(output), "--pid", str(server.proc.pid),
                                "--duration", str(SECONDS), "--rate", str(RATE), "--nonblocking"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            await asyncio.sleep(1.0)   # py-spy attached
            counted: list[int] = []
            cpu = service_moves.cpu_seconds([server.proc.pid])
            rate = await service_moves._rate(drivers, lambda d: d.move(), SECONDS - 2, counted)
            cpu = service_moves.cpu_seconds([server.proc.pid]) - cpu
            code = await asyncio.to_thread(spy.wait, SECONDS + 30)
        finally:
            if spy.poll() is None:
                spy.terminate()
                spy.wait(10)
    if code != 0:
        raise RuntimeError(f"py-spy exited with {code} (attaching needs ptrace permission)")
    return {"profile_moves_per_s": rate, "profile_server_cpu_us_per_move": cpu * 1e6 / counted[0]}


def main() -> None:
    """Profile a server under load; write the flame graph; print the window's figures."""
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "flamegraph-move.svg"
    service_moves.tune_gc()
    with redis_target() as (redis_url, prefix), \
            ServerProcess(service_moves.SEEDED, redis_url=redis_url, prefix=prefix) as server:
        figures = asyncio.run(profile(server, output))
    service_moves.show(figures)
    print(f"profile_flamegraph {output}", flush=True)


if __name__ == "__main__":
    main()
