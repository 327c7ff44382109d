"""`python -m bench.startup`: seconds from `make run` to a server that serves, one `name value` line each.

Each run starts ``make run`` in its own process group with ``PORT=0 HTTP_PORT=0`` (free ports,
so it never meets another server) and the in-memory store, and counts from the command to the
moment both start-up lines ("cardgame server ... listening on", "cardgame HTTP ... listening
on") are logged and the gRPC port accepts a connection; then the group is stopped (SIGTERM,
SIGKILL after 30 s). Figures:

- ``make_run_warm_s``: nothing to rebuild (the median of three runs);
- ``make_run_client_touched_s``: after touching a TypeScript client source, so the client
  and the web table it is built into are rebuilt;
- ``make_run_warm_after_touch_s``: the run after that one, with nothing left to rebuild (the
  rebuilt files must not make the next start rebuild again);
- with ``--cold``, ``make_run_cold_s``: a fresh clone of this checkout's HEAD, so ``make run``
  also makes the venv, the stubs, node_modules, the client and the web table (pip and npm
  take packages from their caches when they have them).

Run it under ``nice`` on a shared machine: the figures are wall-clock times.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOUCHED = Path("clients/typescript/src/core.ts")
STARTED = ("cardgame server", "cardgame HTTP")  # the beginnings of the two "listening on" lines
WARM_RUNS = 3
WARM_TIMEOUT_S = 180.0
COLD_TIMEOUT_S = 1200.0
STOP_TIMEOUT_S = 30.0


def _lines(stream, out: queue.Queue[str | None]) -> None:
    for line in stream:
        out.put(line)
    out.put(None)


def _port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def _stop(proc: subprocess.Popen[str]) -> None:
    """End the process group this run started (make and the server it runs)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(STOP_TIMEOUT_S)


def time_make_run(cwd: Path, timeout_s: float) -> float:
    """Seconds from ``make run`` in ``cwd`` to both ports listening and the gRPC port answering."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "WORKERS", "MAKEFLAGS", "MFLAGS")}
    env.update(PORT="0", HTTP_PORT="0", LOG_LEVEL="INFO")
    start = time.monotonic()
    proc = subprocess.Popen(["make", "--no-print-directory", "run"], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stdout, lines), daemon=True).start()
    seen: dict[str, int] = {}
    tail: list[str] = []
    try:
        while len(seen) < len(STARTED):
            left = start + timeout_s - time.monotonic()
            if left <= 0:
                raise SystemExit(f"make run in {cwd} did not serve within {timeout_s:.0f} s:\n{''.join(tail)}")
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise SystemExit(f"make run in {cwd} ended with {proc.wait()} before serving:\n{''.join(tail)}")
            tail = [*tail[-40:], line]
            try:
                record = json.loads(line)
            except ValueError:
                continue
            message = record.get("message", "") if isinstance(record, dict) else ""
            for prefix in STARTED:
                if message.startswith(prefix) and "listening on" in message:
                    seen[prefix] = int(record["port"])
        deadline = start + timeout_s
        while not _port_answers(seen[STARTED[0]]):
            if time.monotonic() > deadline:
                raise SystemExit(f"the gRPC port {seen[STARTED[0]]} never answered")
            time.sleep(0.01)
        return time.monotonic() - start
    finally:
        _stop(proc)


def warm() -> float:
    time_make_run(ROOT, WARM_TIMEOUT_S)  # whatever is out of date is made once, not timed
    return statistics.median(time_make_run(ROOT, WARM_TIMEOUT_S) for _ in range(WARM_RUNS))


def client_touched() -> float:
    (ROOT / TOUCHED).touch()
    return time_make_run(ROOT, WARM_TIMEOUT_S)


def cold() -> float:
    with tempfile.TemporaryDirectory(prefix="cardgame-cold-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True, timeout=300)
        return time_make_run(clone, COLD_TIMEOUT_S)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.split("\n")[0])
    parser.add_argument("--cold", action="store_true", help="also time make run in a fresh clone")
    args = parser.parse_args(argv)
    print(f"make_run_warm_s {warm():.2f}", flush=True)
    print(f"make_run_client_touched_s {client_touched():.2f}", flush=True)
    print(f"make_run_warm_after_touch_s {time_make_run(ROOT, WARM_TIMEOUT_S):.2f}", flush=True)
    if args.cold:
        print(f"make_run_cold_s {cold():.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
