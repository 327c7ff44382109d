"""Python function calls one Act makes in the server, counted by cProfile: a figure that the
machine's load does not move.

The servicer (``service.rpc.servicer.GameServicer``, as ``python -m service`` builds it: a
checked Redis store, the default settings) runs in this process on Redis (``bench.redis_target``),
and its ``Act`` handler is called directly with a stand-in for the gRPC context (the seat's
bearer token in its metadata), on uvloop as the server runs (its event loop is C code, so the
loop's own scheduling is outside the count), so the count is the server's own work for a move,
from the decoded request to the encoded-ready response: the checks, the table's load, rules and
commit, the view and its protobuf message, the call's metrics and log line. gRPC's transport
(C code) is outside it too.

``GAMES`` scripted games of ``bench.service_moves`` (their turn timer on, as ``TIMED_TURN_MS``)
are played ``WARM_MOVES`` moves each first, then ``MOVES`` Acts are counted, round-robin over
the games. Printed: ``python_calls_per_act`` (every call cProfile sees, built-ins included,
divided by the Acts), ``python_calls_per_act_redis`` (those of functions in redis-py's package)
and ``python_calls_per_act_untimed`` (the same without a turn timer).

``python_instructions_per_act``: the same timed Acts without cProfile, in a process run under
valgrind's callgrind (Debian's valgrind, which ``make bench`` installs), which counts every
instruction it executes: the run is made twice, with ``INSTRUCTION_ACTS`` Acts and with five
times as many, and the figure is the difference of the two totals over the difference of Acts
(so start-up, imports and the games' creation cancel out). It is the server's own work for a
move without gRPC: unlike ``bench.instructions``' per-call counts, no idle thread's work is
shared out over the calls, so it does not move with the machine's speed or load.

    .venv/bin/python -m bench.python_calls
"""

from __future__ import annotations

import cProfile
import os
import pstats
import re
import subprocess
import sys
import uuid

import uvloop

from bench import service_moves
from bench.instructions import valgrind_tool
from bench.redis_target import redis_target
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import lifecycle_pb2 as lifecycle_pb
from service.rpc.servicer import GameServicer
from service.rpc.settings import Settings
from service.store import Store
from service.store.backends import open_store

GAMES = 8
WARM_MOVES = 20
MOVES = int(os.environ.get("BENCH_PYTHON_CALLS_MOVES", "400"))
INSTRUCTION_ACTS = 100


class Context:
    """What the servicer asks of a gRPC context during a unary call that succeeds."""

    def __init__(self, metadata: tuple[tuple[str, str], ...] = ()) -> None:
        self.metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"

    async def abort_with_status(self, status) -> None:
        raise RuntimeError(f"a benchmark call failed: {status.code} {status.details}")


class Game:
    """One scripted game played through the servicer's Act."""

    def __init__(self, servicer: GameServicer, index: int, turn_timeout_ms: int) -> None:
        self.servicer, self.script, self.turn_timeout_ms = servicer, service_moves.script(index), turn_timeout_ms
        self.next = len(self.script.moves)

    async def start(self) -> None:
        created = await self.servicer.CreateGame(pb.CreateGameRequest(
            variant=enums.VARIANT_SPADES, first_dealer=0, shuffle_seed=self.script.seed,
            seats=[pb.SeatConfig(name=f"P{i}") for i in range(4)],
            lifecycle=lifecycle_pb.LifecycleOptions(turn_timeout_ms=self.turn_timeout_ms)), Context())
        self.game_id, self.next = created.game_id, 0
        self.contexts = {t.seat: Context((("authorization", f"Bearer {t.token}"),)) for t in created.seat_tokens}

    async def move(self) -> None:
        if self.next == len(self.script.moves):
            await self.start()
        seat, action = self.script.moves[self.next]
        self.next += 1
        await self.servicer.Act(pb.ActRequest(game_id=self.game_id, action=action, request_id=uuid.uuid4().hex),
                                self.contexts[seat])


async def counted(store: Store, turn_timeout_ms: int) -> tuple[float, float]:
    """(Python calls per Act, of which in redis-py) over MOVES Acts."""
    servicer = GameServicer(store, Settings(allow_seeded_shuffle=True))   # as the benchmarked servers'
    games = [Game(servicer, i, turn_timeout_ms) for i in range(GAMES)]
    for game in games:
        await game.start()
    for _ in range(WARM_MOVES):
        for game in games:
            await game.move()
    for game in games:   # no game restarts (a CreateGame) inside the counted window
        if len(game.script.moves) - game.next < MOVES // GAMES + 1:
            await game.start()
    profile = cProfile.Profile()
    for i in range(MOVES):
        game = games[i % GAMES]
        profile.enable()
        await game.move()
        profile.disable()
    stats = pstats.Stats(profile)
    redis_calls = sum(calls for (path, _, _), (_, calls, *_) in stats.stats.items()   # type: ignore[attr-defined]
                      if f"{os.sep}redis{os.sep}" in path)
    return stats.total_calls / MOVES, redis_calls / MOVES   # type: ignore[attr-defined]


async def acts(redis_url: str, prefix: str, count: int) -> None:
    """Play ``count`` timed Acts after the warm-up, unprofiled (the process callgrind counts)."""
    store = open_store(redis_url, prefix=prefix)
    try:
        servicer = GameServicer(store, Settings(allow_seeded_shuffle=True))
        games = [Game(servicer, i, service_moves.TIMED_TURN_MS) for i in range(GAMES)]
        for game in games:
            await game.start()
        for _ in range(WARM_MOVES):
            for game in games:
                await game.move()
        for game in games:   # no game restarts (a CreateGame) among the Acts
            if len(game.script.moves) - game.next < 5 * INSTRUCTION_ACTS // GAMES + 1:
                await game.start()
        for i in range(count):
            await games[i % GAMES].move()
    finally:
        await store.close()


def instructions_per_act(redis_url: str, prefix: str) -> float:
    """Instructions per timed Act, counted by callgrind over two runs of ``acts`` (see the module)."""
    valgrind = valgrind_tool("valgrind")
    totals = []
    for count in (INSTRUCTION_ACTS, 5 * INSTRUCTION_ACTS):
        done = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                               "-m", "bench.python_calls", "--acts", str(count), redis_url, f"{prefix}-{count}"],
                              capture_output=True, text=True, timeout=900, check=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise RuntimeError(f"callgrind printed no total: {done.stderr[-500:]}")
        totals.append(int(found.group(1)))
    return (totals[1] - totals[0]) / (4 * INSTRUCTION_ACTS)


async def measure(redis_url: str, prefix: str) -> dict[str, float]:
    store = open_store(redis_url, prefix=prefix)
    try:
        timed, timed_redis = await counted(store, service_moves.TIMED_TURN_MS)
        untimed, _ = await counted(store, 0)
    finally:
        await store.close()
    return {"python_calls_per_act": timed, "python_calls_per_act_redis": timed_redis,
            "python_calls_per_act_untimed": untimed}


def main() -> None:
    """Count an Act's Python calls and instructions on Redis; print the figures (with ``--acts N
    URL PREFIX``: play N Acts there for ``instructions_per_act``, printing nothing)."""
    if sys.argv[1:2] == ["--acts"]:
        uvloop.run(acts(sys.argv[3], sys.argv[4], int(sys.argv[2])))
        return
    with redis_target() as (redis_url, prefix):
        figures = uvloop.run(measure(redis_url, prefix))
        figures["python_instructions_per_act"] = instructions_per_act(redis_url, prefix)
    for name, value in figures.items():
        print(f"{name} {value:.0f}", flush=True)


if __name__ == "__main__":
    main()
