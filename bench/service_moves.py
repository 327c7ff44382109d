"""Moves per second and latency through gRPC against Redis, beside a no-op baseline; the Redis
commands and round trips one move costs; and how moves per second scale from one worker
process to two.

The no-op RPC (``bench.noop``) takes a request shaped like a move's (the same message, with a
seat's bearer token in its headers) through the same server stack (the cap on calls in progress,
metrics, the log line) and does only the store's read and compare-and-set, so
``service_vs_noop_ratio`` shows what the rules, the token check, the view and their protobuf
conversion cost on top of the unavoidable I/O. Each game's moves are worked out before the clock
starts (``Script``), and the rate and latency runs are driven by the compiled load generator
(``bench.loadgen``, clients/go/cmd/loadgen) over one connection, so the load costs the cores it
shares with the server and Redis little, and the same for a move as for a no-op. The ratio is
measured ``RUNS`` times (moves, then no-ops, each for ``SECONDS / 2``, one call after another in
each of ``GAMES`` games) and printed as the median with its spread.

Latency is measured open-loop: moves are sent on a fixed schedule at half the median maximum
rate, each latency counted from when its move was due (so a stalled server cannot hide the
moves it delayed), over ``LATENCY_SECONDS``; the no-op's the same way at the same rate.
``service_paced_steal_percent`` is the share of the machine's CPU time a hypervisor gave to
others (``steal`` in /proc/stat) during the moves' run: on a virtual machine, a slice taken
stalls every call in flight for its length, and sets the p99 whatever the server does.
``service_paced_runqueue_wait_ms_per_s`` is how long the server's threads stood ready to run
but found no free core (their run-queue wait in /proc/<pid>/task/*/schedstat), per second of
that run: the cores are shared with Redis and the load generator, and each such wait delays
every call in flight.

The moving games start an even share of a hand apart in their scripts (``staggered``), as
independent tables would be, not in step.

The Redis figures come from a private redis-server that only this benchmark's server uses:
``redis_commands_per_move`` is the delta of ``INFO stats`` ``total_commands_processed`` (which
counts every command a Lua script runs) over ``COUNT_MOVES`` moves, divided by the moves, and
``redis_cpu_us_per_move`` the delta of ``INFO cpu`` (``used_cpu_user`` + ``used_cpu_sys``: the
whole redis-server process, network included) and of ``total_net_input_bytes`` /
``total_net_output_bytes`` (``redis_net_in_bytes_per_move``, ``..._out_...``: what the server
sends Redis and reads back) over the same moves; ``redis_round_trips_per_move``
counts the commands clients sent (``MONITOR`` lines whose source is a client connection, not
``lua``) over ``COUNT_MOVES`` more moves, recorded apart because MONITOR slows Redis down. What
the server sends while no move is made (its sweeper) is measured over a quiet ``IDLE_SECONDS``
before each count and taken off at its rate, so these figures are a move's own.

``service_cpu_us_per_move`` / ``service_cpu_us_per_noop`` are the server process's CPU time
(user + system, psutil) over the rate runs, divided by the calls answered: what one call costs
the server whatever else the machine does meanwhile. ``service_cpu_noop_vs_move_ratio``, the
second over the first, is what ``service_vs_noop_ratio`` comes to while the server's CPU is
what limits both rates, and moves much less from run to run.

The workers' figures load a server started with ``--workers 1`` and then ``--workers 2``
through several connections (SO_REUSEPORT gives each connection to one worker), once every
worker listens; ``service_workers_2_vs_1_ratio`` is the second rate over the first.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import grpc
import psutil
import redis

import engine
from bench import loadgen
from bench.redis_target import PrivateRedis, redis_target  # tests/ helpers, put on the path last
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from cardgame.v1 import lifecycle_pb2 as lifecycle_pb
from engine import Phase
from engine.games.spades_words import DOUBLE_NIL, REVEAL
from service.ops.server import GC_GEN0_THRESHOLD
from testkit.launcher import ServerProcess

GAMES = 64
MAX_HANDS = 20
RUNS = 3
SECONDS = float(os.environ.get("BENCH_SECONDS", "6"))
WORKER_SECONDS = float(os.environ.get("BENCH_WORKER_SECONDS", "4"))
LATENCY_SECONDS = float(os.environ.get("BENCH_LATENCY_SECONDS", "5"))
COUNT_MOVES = int(os.environ.get("BENCH_COUNT_MOVES", "2000"))
CONNECTIONS = 8
LISTEN_TIMEOUT_S = 30.0
SEEDED = "--allow-seeded-shuffle"
RESERVE_MOVES = 300   # a game with fewer moves left in its script is started again before a run
SKIPPED = (REVEAL, DOUBLE_NIL)   # every seat bids blind-free: an ordinary game


@dataclass(frozen=True)
class Script:
    """One all-human four-player Spades game worked out in advance: its shuffle seed and every
    move, as (seat, Act notation), until it ends or reaches MAX_HANDS.

    The server shuffles a seeded game with ``random.Random(f"{seed}:{version}")`` for the change
    that makes ``version`` (``GameRecord.rng``), so a local engine dealt the same way knows every
    hand; no prearranged decks ride along in the stored state, which stays the size of a real
    game's.
    """

    seed: int
    moves: list[tuple[int, str]]

    @classmethod
    def play(cls, seed: int) -> Script:
        """Random legal moves (no REVEAL, no Double Nil) of a local engine game."""
        rng = random.Random(seed)
        state = engine.new_game("spades", first_dealer=0)
        moves: list[tuple[int, str]] = []
        while state.phase != Phase.GAME_OVER and not (state.phase == Phase.DEAL and state.hand_no == MAX_HANDS):
            seat = state.turn if state.turn >= 0 else next(s for s in range(4) if engine.legal_actions(state, s))
            action = rng.choice([a for a in engine.legal_actions(state, seat) if a not in SKIPPED])
            engine.apply(state, seat, action, random.Random(f"{seed}:{len(moves) + 2}"))   # genesis is version 1
            moves.append((seat, engine.notation(state.variant, action)))
        return cls(seed, moves)


_SCRIPTS: dict[int, Script] = {}
HAND_MOVES = 57   # a four-player Spades hand: the deal, four bids, 52 cards


def staggered(index: int) -> int:
    """How far into its script game ``index`` of GAMES starts: an even share of a hand each, so
    hands end spread out as independent tables' do. Started together, the games would move in
    step under the load generator's round-robin, all GAMES hands ending within a tenth of a
    second, and their events' publishing and the sweeper's visits after the publish grace would
    come as one burst, a pattern of the benchmark rather than of the service."""
    return index * HAND_MOVES // GAMES


def script(index: int) -> Script:
    """The script of game ``index`` (worked out once per process)."""
    if index not in _SCRIPTS:
        _SCRIPTS[index] = Script.play(index + 1)
    return _SCRIPTS[index]


class Driver:
    """Plays one scripted game through a stub, move after move; starts it again when it ends,
    ``offset`` moves into its script (played as it starts)."""

    def __init__(self, stub, index: int, offset: int = 0, turn_timeout_ms: int = 0):
        self.stub, self.script, self.offset = stub, script(index), offset
        self.turn_timeout_ms = turn_timeout_ms
        self.next = len(self.script.moves)

    async def start(self) -> None:
        """Create the game with the script's shuffle seed (and its turn timer, if any)."""
        created = await self.stub.CreateGame(pb.CreateGameRequest(
            variant=enums.VARIANT_SPADES, first_dealer=0, shuffle_seed=self.script.seed,
            seats=[pb.SeatConfig(name=f"P{i}") for i in range(4)],
            lifecycle=lifecycle_pb.LifecycleOptions(turn_timeout_ms=self.turn_timeout_ms)))
        self.game_id = created.game_id
        self.seat_tokens = {t.seat: t.token for t in created.seat_tokens}
        self.tokens = {seat: (("authorization", f"Bearer {token}"),) for seat, token in self.seat_tokens.items()}
        self.next = 0
        for _ in range(self.offset):
            await self.move()

    def planned(self) -> dict:
        """The game as a plan of the compiled load generator (``bench.loadgen``) takes it."""
        return loadgen.game(self.game_id, self.seat_tokens, self.script.moves, self.next)

    async def move(self) -> None:
        """Send the script's next move (with a request id, as a client that retries sends it)."""
        if self.next == len(self.script.moves):
            await self.start()
        seat, action = self.script.moves[self.next]
        self.next += 1
        await self.stub.Act(pb.ActRequest(game_id=self.game_id, action=action, request_id=uuid.uuid4().hex),
                            metadata=self.tokens[seat])


def cpu_seconds(pids) -> float:
    """CPU seconds (user + system) the processes ``pids`` and their children have used so far."""
    total = 0.0
    for pid in pids:
        try:
            process = psutil.Process(pid)
            for each in (process, *process.children(recursive=True)):
                times = each.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


async def _rate(workers, call, seconds: float, counted: list[int] | None = None) -> float:
    count = 0
    stop = time.perf_counter() + seconds

    async def loop(worker) -> None:
        nonlocal count
        while time.perf_counter() < stop:
            await call(worker)
            count += 1

    start = time.perf_counter()
    await asyncio.gather(*(loop(w) for w in workers))
    if counted is not None:
        counted.append(count)
    return count / (time.perf_counter() - start)


def _latency(result: dict) -> tuple[float, float]:
    """(p50, p99) in ms of a load generator's run."""
    return result["latency_ms"]["p50"], result["latency_ms"]["p99"]


async def ready(drivers: list[Driver]) -> None:
    """Start again, together, every game with fewer than RESERVE_MOVES moves left in its script
    (a staggered game plays its offset as it starts): a measured window that called this first
    counts none of that work."""
    await asyncio.gather(*(driver.start() for driver in drivers
                           if len(driver.script.moves) - driver.next < RESERVE_MOVES))


async def generated(address: str, drivers: list[Driver], mode: str, method: str, seconds: float,
                    rate: float = 0.0) -> dict:
    """One run of the compiled load generator over ``drivers``' games (``bench.loadgen``); each
    driver's next move moves on by the calls it took. Games near the end of their scripts are
    started again first (``ready``), so none runs out during the run; any failed call is an error."""
    await ready(drivers)
    plan = {"address": address, "mode": mode, "method": method, "seconds": seconds, "rate": rate,
            "games": [driver.planned() for driver in drivers]}
    result = await asyncio.to_thread(loadgen.run, plan)
    if result["errors"] or result["exhausted"]:
        raise RuntimeError(f"the load generator's {mode} {method} run failed calls or ran out of moves: "
                           f"errors {result['errors']}, games out of moves {result['exhausted']}")
    for driver, reached in zip(drivers, result["next"], strict=True):
        driver.next = reached
    return result


async def measure(address: str, pid: int) -> dict[str, float]:
    """The rate, ratio and latency figures against a running server (with the no-op handler),
    and the CPU time the server process ``pid`` spends on a move and on a no-op."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        drivers = [Driver(stub, i, staggered(i)) for i in range(GAMES)]
        # The no-op rewrites a game at its next version: it gets games of its own, for a scripted
        # game's version (which seeds its shuffle) must count only its moves.
        idle = [Driver(stub, i) for i in range(GAMES)]
        await asyncio.gather(*(d.start() for d in drivers + idle))
        await generated(address, drivers, "rate", "act", 1.0)  # warm up
        moves, noops, counts = [], [], []
        cpu = {"move": 0.0, "noop": 0.0}
        for _ in range(RUNS):
            await ready(drivers)   # restarts (creating games, playing their offsets) outside the CPU count
            before = cpu_seconds([pid])
            done = await generated(address, drivers, "rate", "act", SECONDS / 2)
            middle = cpu_seconds([pid])
            moves.append(done["rate"])
            counts.append(done["calls"])
            done = await generated(address, idle, "rate", "noop", SECONDS / 2)
            noops.append(done["rate"])
            counts.append(done["calls"])
            cpu["move"] += middle - before
            cpu["noop"] += cpu_seconds([pid]) - middle
        ratios = [m / n for m, n in zip(moves, noops, strict=True)]
        pace = statistics.median(moves) / 2
        await ready(drivers)
        ticks, waits = cpu_ticks(), runqueue_waits(pid)
        move_p50, move_p99 = _latency(await generated(address, drivers, "paced", "act", LATENCY_SECONDS, pace))
        ticks = [after - before for before, after in zip(ticks, cpu_ticks(), strict=True)]
        waited = waited_s(waits, runqueue_waits(pid))
        noop_p50, noop_p99 = _latency(await generated(address, idle, "paced", "noop", LATENCY_SECONDS, pace))
    cpu_move, cpu_noop = cpu["move"] * 1e6 / sum(counts[0::2]), cpu["noop"] * 1e6 / sum(counts[1::2])
    return {
        "service_moves_per_s": statistics.median(moves), "service_noop_per_s": statistics.median(noops),
        "service_vs_noop_ratio": statistics.median(ratios),
        "service_vs_noop_ratio_min": min(ratios), "service_vs_noop_ratio_max": max(ratios),
        "service_cpu_us_per_move": cpu_move, "service_cpu_us_per_noop": cpu_noop,
        "service_cpu_noop_vs_move_ratio": cpu_noop / cpu_move,
        "service_paced_per_s": pace,
        "service_move_p50_ms": move_p50, "service_move_p99_ms": move_p99,
        "service_paced_steal_percent": 100 * ticks[7] / max(sum(ticks), 1),
        "service_paced_runqueue_wait_ms_per_s": waited * 1000 / LATENCY_SECONDS,
        "service_noop_p50_ms": noop_p50, "service_noop_p99_ms": noop_p99,
    }


def cpu_ticks() -> list[int]:
    """The machine's CPU time so far, in ticks, by the first line of /proc/stat (user, nice,
    system, idle, iowait, irq, softirq, steal); zeros where there is no /proc/stat."""
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()[1:9]
    except OSError:
        return [0] * 8
    return [int(field) for field in fields] + [0] * (8 - len(fields))


def runqueue_waits(pid: int) -> dict[str, int]:
    """The nanoseconds each thread of process ``pid`` has spent so far ready to run but waiting
    for a CPU, by thread id (the second field of /proc/<pid>/task/<tid>/schedstat); empty where
    the kernel does not say."""
    waits = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            waits[task.name] = int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):   # a thread that ended meanwhile, or no schedstats
            continue
    return waits


def waited_s(before: dict[str, int], after: dict[str, int]) -> float:
    """The seconds of run-queue wait between two ``runqueue_waits`` readings, over the threads
    alive at the second (a thread started in between counts all of its wait; one that ended in
    between, none)."""
    return sum(ns - before.get(tid, 0) for tid, ns in after.items()) / 1e9


def _info(client: redis.Redis) -> tuple[int, float, int, int]:
    """(total_commands_processed, CPU seconds used (user and system), network bytes in, out) of a Redis now."""
    stats, cpu = client.info("stats"), client.info("cpu")
    return (int(stats["total_commands_processed"]), float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
            int(stats["total_net_input_bytes"]), int(stats["total_net_output_bytes"]))


IDLE_SECONDS = 2.0   # the quiet window whose Redis traffic (the sweeper's) is taken off the moves


def _client_commands(lines: list[str]) -> int:
    """The commands client connections sent in MONITOR lines (not those Lua scripts ran), the
    counting client's own INFO calls left out."""
    count = 0
    for line in lines:
        source, _, command = line.partition("] ")
        if "[" in source and not source.endswith(" lua") and not command.lower().startswith('"info"'):
            count += 1
    return count


async def _counted(address: str, client: redis.Redis, capture: Path, cli: str,
                   turn_timeout_ms: int = 0) -> tuple[int, list[float], float]:
    """Play GAMES games one move each (warm-up), then twice COUNT_MOVES moves: the first time
    reading Redis' counters around them and around a quiet IDLE_SECONDS before, the second time
    while MONITOR records into ``capture`` (after a quiet IDLE_SECONDS too); (moves, the
    counters' deltas as ``_info`` lists them, client commands), the quiet windows' rates
    (the server's sweeper) taken off."""
    rounds = max(COUNT_MOVES // GAMES, 1)
    async with grpc.aio.insecure_channel(address) as channel:
        drivers = [Driver(pb_grpc.GameServiceStub(channel), i, turn_timeout_ms=turn_timeout_ms) for i in range(GAMES)]
        await asyncio.gather(*(d.start() for d in drivers))
        await asyncio.gather(*(d.move() for d in drivers))
        quiet, began = _info(client), time.perf_counter()
        await asyncio.sleep(IDLE_SECONDS)
        before, idle_s = _info(client), time.perf_counter() - began
        for _ in range(rounds):
            await asyncio.gather(*(d.move() for d in drivers))
        after, busy_s = _info(client), time.perf_counter() - began - idle_s
        # the counting client's own INFO calls (INFO stats, INFO cpu) are two commands a window
        deltas = [(a - b) - (b - q - (2 if k == 0 else 0)) / idle_s * busy_s - (2 if k == 0 else 0)
                  for k, (q, b, a) in enumerate(zip(quiet, before, after, strict=True))]
        with capture.open("wb") as out:
            monitor = subprocess.Popen([cli, "-p", str(client.connection_pool.connection_kwargs["port"]), "monitor"],
                                       stdout=out, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 5
            while capture.stat().st_size == 0 and time.monotonic() < deadline:   # MONITOR answers OK first
                await asyncio.sleep(0.01)
            began = time.perf_counter()
            await asyncio.sleep(IDLE_SECONDS)
            idle_lines, idle_s = len(capture.read_text(errors="replace").splitlines()), time.perf_counter() - began
            for _ in range(rounds):
                await asyncio.gather(*(d.move() for d in drivers))
            busy_s = time.perf_counter() - began - idle_s
        finally:
            monitor.terminate()
            monitor.wait(5)
    lines = capture.read_text(errors="replace").splitlines()
    idle = _client_commands(lines[:idle_lines])
    return rounds * GAMES, deltas, _client_commands(lines[idle_lines:]) - idle / idle_s * busy_s


TIMED_TURN_MS = 60_000   # the turn timer of the timed run: long enough that no turn passes during it


def _redis_run(turn_timeout_ms: int = 0) -> tuple[int, list[float], float]:
    """``_counted`` on a private redis-server and a server of its own (games with ``turn_timeout_ms``)."""
    cli = shutil.which("redis-cli")
    if cli is None:
        raise RuntimeError("redis-cli is needed for the round-trip count (apt-get install redis-server)")
    with PrivateRedis() as private, ServerProcess(SEEDED, redis_url=private.url, prefix="bench") as server:
        client = redis.Redis.from_url(private.url)
        with tempfile.TemporaryDirectory(prefix="bench-monitor-") as folder:
            try:
                return asyncio.run(_counted(server.address, client, Path(folder) / "monitor.txt", cli,
                                            turn_timeout_ms))
            finally:
                client.close()


def redis_figures() -> dict[str, float]:
    """Redis commands, round trips, CPU and network bytes per move, on a private redis-server;
    the commands and round trips again in games with a turn timer (``..._timed``: every move
    sets the next turn's deadline)."""
    moves, (commands, cpu, net_in, net_out), clients = _redis_run()
    timed_moves, (timed_commands, *_), timed_clients = _redis_run(TIMED_TURN_MS)
    return {"redis_commands_per_move": commands / moves, "redis_round_trips_per_move": clients / moves,
            "redis_cpu_us_per_move": cpu * 1e6 / moves, "redis_net_in_bytes_per_move": net_in / moves,
            "redis_net_out_bytes_per_move": net_out / moves,
            "redis_commands_per_move_timed": timed_commands / timed_moves,
            "redis_round_trips_per_move_timed": timed_clients / timed_moves}


async def moves_over_connections(address: str, connections: int, seconds: float) -> float:
    """Moves per second over GAMES concurrent games spread over ``connections`` connections."""
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(connections)]
    try:
        drivers = [Driver(pb_grpc.GameServiceStub(channels[i % connections]), i) for i in range(GAMES)]
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
        with ServerProcess(SEEDED, "--workers", str(workers), redis_url=redis_url,
                           prefix=prefix) as server:
            wait_listening(server, workers)
            rates[workers] = asyncio.run(moves_over_connections(server.address, CONNECTIONS, WORKER_SECONDS))
    return {"service_moves_per_s_1_worker": rates[1], "service_moves_per_s_2_workers": rates[2],
            "service_workers_2_vs_1_ratio": rates[2] / rates[1]}


def tune_gc() -> None:
    """The benchmark's own process gets the same garbage-collector tuning as the server."""
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, 20, 20)


def show(figures: dict[str, float]) -> None:
    """Print ``name value`` lines: ratios and milliseconds with decimals, counts rounded."""
    for name, value in figures.items():
        precise = any(part in name for part in ("ratio", "_ms", "per_move"))
        print(f"{name} {value:.3f}" if precise else f"{name} {value:.0f}", flush=True)


def main() -> None:
    """Start a server on Redis (``bench.redis_target``), measure, print, clean up."""
    tune_gc()
    with redis_target() as (redis_url, prefix):
        with ServerProcess(SEEDED, module="testkit.bench_server", redis_url=redis_url,
                           prefix=prefix) as server:
            figures = asyncio.run(measure(server.address, server.proc.pid))
        figures.update(redis_figures())
        figures.update(workers_figures(redis_url, prefix))
    show(figures)


if __name__ == "__main__":
    main()
