"""Instructions a move and a no-op cost the server, counted by callgrind: figures that the
machine's load does not move.

``bench.service_moves`` times moves against no-ops, and on a shared machine its ratio wanders by
a tenth from run to run. Here the server runs under valgrind's callgrind (``make
debian-packages`` installs it), which counts every instruction the process executes (the
interpreter, gRPC's core, protobuf, the Redis client, libc) whatever else the machine does. The
same scripted games as ``bench.service_moves`` (``GAMES`` of them) are loaded by the compiled
generator in closed loops (callgrind runs the server some fifty times slower, so a loop of
``SECONDS`` counts a few hundred calls), first moves, then no-ops, the counters zeroed before
each and dumped after it (``callgrind_control``), each divided by the calls answered; a warm-up
of both runs first.

Printed: ``service_instructions_per_move``, ``service_instructions_per_noop`` and their ratio
``service_instructions_noop_vs_move_ratio``, which is what ``service_vs_noop_ratio`` comes to
when every instruction costs the same time (system calls are counted as the instructions that
make them, so it leans a little towards the no-op, whose calls are mostly system calls). The
server's idle work (its sweeper, health) while the calls run is included; at these rates it is
a few thousand instructions a call. ``service_instructions_moves_counted`` tells how many moves
the figure averages, and ``instructions_bench_seconds`` how long the module took, start-up under
callgrind included.

    .venv/bin/python -m bench.instructions      # about a minute
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import grpc

from bench import service_moves
from bench.redis_target import redis_target
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from testkit.launcher import ServerProcess

SECONDS = float(os.environ.get("BENCH_INSTRUCTION_SECONDS", "10"))
GAMES = 8
START_TIMEOUT_S = 300.0
STOP_TIMEOUT_S = 60.0
WARM_UP_S = 3.0


def valgrind_tool(name: str) -> str:
    """The path of one of Debian's valgrind programs (``valgrind``, ``callgrind_control``)."""
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} not found: run `make debian-packages` (Debian's valgrind)")
    return found


def _summary(dump: Path) -> int:
    """The instructions a callgrind dump counted (its ``summary:`` line)."""
    found = re.search(r"^summary: (\d+)$", dump.read_text(errors="replace"), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no summary line in the callgrind dump {dump}")
    return int(found.group(1))


async def _count(address: str, pid: int, folder: Path) -> dict[str, int]:
    """Warm up, then count moves and no-ops for ``SECONDS`` each: {"act": instructions, "act_calls":
    calls answered, "noop": ..., "noop_calls": ...}."""
    control = valgrind_tool("callgrind_control")
    async with grpc.aio.insecure_channel(address) as channel:
        await asyncio.wait_for(channel.channel_ready(), START_TIMEOUT_S)
        stub = pb_grpc.GameServiceStub(channel)
        drivers = [service_moves.Driver(stub, i) for i in range(GAMES)]
        idle = [service_moves.Driver(stub, i) for i in range(GAMES)]
        for driver in drivers + idle:
            await asyncio.wait_for(driver.start(), START_TIMEOUT_S)
        await service_moves.generated(address, drivers, "rate", "act", WARM_UP_S)
        await service_moves.generated(address, idle, "rate", "noop", WARM_UP_S)
        counted = {}
        for method, games in (("act", drivers), ("noop", idle)):
            subprocess.run([control, "--zero", str(pid)], check=True, capture_output=True)
            result = await service_moves.generated(address, games, "rate", method, SECONDS)
            before = set(folder.iterdir())
            subprocess.run([control, "--dump", method, str(pid)], check=True, capture_output=True)
            dumps = set(folder.iterdir()) - before
            if len(dumps) != 1:
                raise RuntimeError(f"callgrind_control --dump made {len(dumps)} files in {folder}")
            counted[method] = _summary(dumps.pop())
            counted[method + "_calls"] = result["calls"]
    return counted


def figures(redis_url: str, prefix: str) -> dict[str, float]:
    """The instruction figures of a server on ``redis_url`` under ``prefix``, run under callgrind."""
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as name:
        folder = Path(name)
        server = ServerProcess(service_moves.SEEDED, module="testkit.bench_server", redis_url=redis_url,
                               prefix=prefix, env={"LOG_LEVEL": "WARNING"},
                               wrapper=[valgrind_tool("valgrind"), "--tool=callgrind",
                                        f"--callgrind-out-file={folder}/callgrind.%p"])
        server.start(START_TIMEOUT_S)
        try:
            assert server.proc is not None
            counted = asyncio.run(_count(server.address, server.proc.pid, folder))
        finally:
            server.stop(STOP_TIMEOUT_S)
    move, noop = counted["act"] / counted["act_calls"], counted["noop"] / counted["noop_calls"]
    return {"service_instructions_per_move": move, "service_instructions_per_noop": noop,
            "service_instructions_noop_vs_move_ratio": noop / move,
            "service_instructions_moves_counted": counted["act_calls"]}


def main() -> None:
    """Count on Redis (``bench.redis_target``) under a key prefix of its own, removed after."""
    began = time.monotonic()
    with redis_target() as (url, prefix):
        counted = figures(url, prefix)
    counted["instructions_bench_seconds"] = time.monotonic() - began
    service_moves.show(counted)


if __name__ == "__main__":
    main()
