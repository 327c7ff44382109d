"""Worker processes on one port: started, watched, restarted when they die, stopped together.

The parent binds nothing itself; each worker serves the port with SO_REUSEPORT. Before that,
the port is probed without SO_REUSEPORT, so a second instance on a port already served fails
with a clear message instead of silently sharing it. A worker that dies is started again (at
most ``MAX_RESTARTS`` times a minute per worker); a worker whose parent dies stops itself.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from service.http.sockets import shared_socket, tcp_socket

log = logging.getLogger("cardgame.workers")

MAX_RESTARTS = 5
RESTART_WINDOW_S = 60.0
POLL_S = 0.2


def check_port_free(host: str, port: int) -> None:
    """Exit with a clear message when another process already serves ``host:port``."""
    if port == 0:
        return
    probe = tcp_socket(host)
    # SO_REUSEADDR, as the server itself binds: connections a crashed instance left in TIME_WAIT
    # do not block a restart, while a live listener still refuses the bind.
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind((host.strip("[]"), port))
    except OSError as exc:
        sys.exit(f"cannot serve {host}:{port}: {exc.strerror or exc} (is another instance running?)")
    finally:
        probe.close()


def reserve_port(host: str) -> socket.socket:
    """A socket bound, not listening, to a port of the kernel's choosing on ``host``, with
    SO_REUSEPORT: the workers of a server asked for port 0 all bind that one port beside it (a
    socket that does not listen takes no connections), and while it stays open no other process
    can take the port, so a restarted worker finds it again."""
    return shared_socket(host, 0)


def stop_with_parent(parent_pid: int) -> None:
    """In a worker: send ourselves SIGTERM (a graceful stop) once the parent process is gone."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(POLL_S)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def supervise(count: int, target: Callable[..., None], args: tuple[Any, ...],
              exited: Callable[[int], None] | None = None) -> None:
    """Run ``count`` processes of ``target(*args, parent_pid)``, restarting any that dies, until
    SIGTERM/SIGINT (forwarded to them all); exits non-zero if a worker keeps dying. ``exited``
    is told the pid of each worker that ended."""
    ctx = multiprocessing.get_context("spawn")
    parent = os.getpid()
    stopping = False
    restarts: list[deque[float]] = [deque() for _ in range(count)]

    def start(i: int) -> multiprocessing.process.BaseProcess:
        process = ctx.Process(target=target, args=(*args, parent), name=f"worker-{i}")
        process.start()
        return process

    workers = [start(i) for i in range(count)]

    def forward(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for w in workers:
            if w.is_alive() and w.pid is not None:
                os.kill(w.pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    failed = False
    while any(w.is_alive() for w in workers) or not (stopping or failed):
        time.sleep(POLL_S)
        for i, w in enumerate(workers):
            if w.is_alive() or stopping or failed:
                continue
            if exited is not None and w.pid is not None:
                exited(w.pid)
            now = time.monotonic()
            window = restarts[i]
            while window and now - window[0] > RESTART_WINDOW_S:
                window.popleft()
            if len(window) >= MAX_RESTARTS:
                log.error("%s exited with %s %d times within %.0f s: stopping", w.name, w.exitcode,
                          MAX_RESTARTS + 1, RESTART_WINDOW_S)
                failed = True
                forward(signal.SIGTERM, None)
                continue
            window.append(now)
            log.warning("%s exited with %s: starting it again", w.name, w.exitcode)
            workers[i] = start(i)
    if failed:
        sys.exit("a worker kept dying")
