"""uvicorn serving the HTTP port inside the gRPC server's event loop, started and stopped with it.

The listening socket is bound with SO_REUSEPORT, like the gRPC port, so every worker process
of ``--workers`` serves the same HTTP port. Signals stay with ``service.server.serve``, which
stops both servers together: uvicorn stops accepting, lets calls in flight finish for the
grace period, then cancels what is left (open WatchGame streams, which clients resume with
``from_version``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import time
from collections.abc import Iterator
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from service import logs
from service.tls import ServerTls

log = logging.getLogger("cardgame.http")

START_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 30


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers (the gRPC server's serve() owns SIGTERM/SIGINT)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` with SO_REUSEPORT (shared by worker processes)."""
    address = host.strip("[]")
    sock = socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((address, port))
        sock.listen(1024)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


class HttpServer:
    """An ASGI application on ``host:port`` (0 = any free port), on the running event loop; over
    TLS (requiring client certificates for mutual TLS) with ``tls``."""

    def __init__(self, app: ASGIApp, host: str, port: int, grace_s: float, tls: ServerTls | None = None):
        self.app = app
        self.host = host
        self.port = port
        self.grace_s = grace_s
        self.tls = tls
        self._server: _Server | None = None
        self._task: asyncio.Task | None = None

    async def start(self) -> int:
        """Bind, start serving and return the port (once uvicorn accepts connections)."""
        sock = listening_socket(self.host, self.port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, lifespan="off", ws="none", log_config=None, access_log=False,
                                server_header=False, timeout_keep_alive=KEEP_ALIVE_S,
                                timeout_graceful_shutdown=max(1, round(self.grace_s)), **self._ssl())
        self._server = server = _Server(config)
        self._task = task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]), name="http")
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("the HTTP server stopped while starting")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the HTTP server did not start in {START_TIMEOUT_S} s")
            await asyncio.sleep(0.01)
        logs.announce(log, "cardgame HTTP (Connect, gRPC-Web, web table) listening on %s:%d", self.host, self.port,
                      host=self.host, port=self.port, tls="mutual" if self.tls and self.tls.client_ca else
                      "on" if self.tls else "off")
        return self.port

    def _ssl(self) -> dict[str, Any]:
        """uvicorn's TLS options for ``tls``."""
        if self.tls is None:
            return {}
        options: dict[str, Any] = {"ssl_certfile": self.tls.cert, "ssl_keyfile": self.tls.key}
        if self.tls.client_ca:
            options.update(ssl_ca_certs=self.tls.client_ca, ssl_cert_reqs=ssl.CERT_REQUIRED)
        return options

    async def stop(self) -> None:
        """Stop accepting, give calls in flight the grace period, and return once stopped."""
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        await self._task
