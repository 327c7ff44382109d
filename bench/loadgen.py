"""Run the compiled load generator (clients/go/cmd/loadgen) from Python.

A Python load generator (grpc.aio, as ``bench.service_moves.Driver`` plays) spends some 0.5-1 ms
of CPU on each call, on the same cores as the server it measures, and its event loop sends a
paced call up to a millisecond after it is due: on a small shared machine both show up in the
server's latency figures. The Go generator spends less on a call, none of it holding an
interpreter the answers wait for, and sends each paced call within microseconds of its due
time, so more of what it measures is the server's.

``run(plan)`` builds it if needed (``make -C clients/go bin/loadgen``: Go, clients/go/go.mod's
version or newer, and the Go module proxy, or a module cache that holds go.sum's modules), hands
it the plan as JSON on stdin and returns the result it prints. A plan::

    {"address": "127.0.0.1:50051", "mode": "rate" | "paced", "method": "act" | "noop",
     "seconds": 3.0, "rate": 500.0,        # rate: calls per second, for "paced"
     "games": [game(game_id, tokens, script.moves), ...]}

and its result::

    {"calls": ok calls, "errors": {"UNAUTHENTICATED": n, ...}, "seconds": first send to last answer,
     "rate": calls / seconds, "latency_ms": {"p50", "p90", "p99", "max"} (None without an ok call),
     "next": each game's next move, in plan order, "exhausted": games with no move left}

"rate" is a closed loop (one call after another per game, the maximum rate; latency from send);
"paced" an open loop (``floor(rate * seconds)`` calls on a fixed schedule, each to an idle game,
latency from when it was due).
Percentiles are computed as ``statistics.quantiles(..., n=100)`` computes them.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GO_CLIENT = ROOT / "clients" / "go"
BINARY = GO_CLIENT / "bin" / "loadgen"
BUILD_LOCK = GO_CLIENT / ".build.lock"
BUILD_TIMEOUT_S = 300      # a build from a clean tree downloads gRPC's modules and compiles them
RUN_SLACK_S = 60           # past the plan's seconds (the generator gives up on its calls at 30)


@contextlib.contextmanager
def build_lock() -> Iterator[None]:
    """Hold clients/go's build lock: whoever builds, cleans or runs what it built (parallel test
    workers, a benchmark) does so alone."""
    with open(BUILD_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def binary() -> Path:
    """The generator's path, built (or found up to date) by clients/go's Makefile."""
    command = ["make", "-s", "-C", str(GO_CLIENT), "bin/loadgen"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"{' '.join(command)}: {exc}") from exc
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed (exit {done.returncode}; Go missing or older than "
                           f"clients/go/go.mod asks? the Go module proxy unreachable?):\n{done.stdout}{done.stderr}")
    return BINARY


def game(game_id: str, tokens: Mapping[int, str], moves: Iterable[tuple[int, str]], start: int = 0,
         seats: int = 4) -> dict[str, Any]:
    """A plan's game: ``tokens`` by seat (a seat without one gets ""), ``moves`` as (seat, notation),
    the first to send at index ``start``."""
    return {"game_id": game_id, "tokens": [tokens.get(seat, "") for seat in range(seats)],
            "moves": [[seat, notation] for seat, notation in moves], "next": start}


def run(plan: Mapping[str, Any]) -> dict[str, Any]:
    """Run the generator on ``plan`` and return its result; RuntimeError if it fails (a bad
    plan, a server it cannot reach). Calls that fail are in the result's ``errors``."""
    with build_lock():   # nobody cleans the tree between the build and the run
        path = binary()
        done = subprocess.run([str(path)], input=json.dumps(plan), capture_output=True, text=True,
                              timeout=float(plan.get("seconds", 0)) + RUN_SLACK_S)
    if done.returncode != 0:
        raise RuntimeError(f"loadgen exited with {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)
