"""uvicorn serving the HTTP port inside the gRPC server's event loop, started and stopped with it.

The listening socket is bound with SO_REUSEPORT, like the gRPC port, so every worker process
of ``--workers`` serves the same HTTP port. Signals stay with ``service.server.serve``, which
stops both servers together: it first ends the open streams (UNAVAILABLE, through the
servicer's stream gate: clients resume them elsewhere with ``from_version``), then uvicorn stops
accepting, lets calls in flight finish (at most for the grace period, after which it cancels
what is left) and returns as soon as they have.

Connections are HTTP/1.1 on h11 (:class:`GuardedH11Protocol`), with two timeouts below the
application, where no request exists yet:

- the header timeout: a connection must deliver a request's complete headers within it, counted
  from the connection's start (a silent connection included) or, on a kept-alive connection,
  from the first byte of its next request (one byte every few seconds does not keep it open);
- the idle timeout: a connection with no request in progress and nothing received is closed
  after it (uvicorn's keep-alive timeout between requests, and also before the first request).

Neither runs while a request is being answered, so a WatchGame stream stays open however long
it waits for the game's next change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from service.http.sockets import shared_socket
from service.telemetry import logs

if TYPE_CHECKING:
    from service.ops.tls import ServerTls

log = logging.getLogger("cardgame.http")

START_TIMEOUT_S = 10.0
HEADER_TIMEOUT_S = 10.0
IDLE_TIMEOUT_S = 30.0
_REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header timeout and an idle timeout from the connection's start
    (uvicorn's own keep-alive timer runs only after a response). A subclass per server sets the two."""

    header_timeout_s = HEADER_TIMEOUT_S
    idle_timeout_s = IDLE_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeout_keep_alive = self.idle_timeout_s  # type: ignore[assignment]  # call_later takes a float
        self._header_timer: asyncio.TimerHandle | None = None

    @classmethod
    def with_timeouts(cls, header_timeout_s: float, idle_timeout_s: float) -> type[GuardedH11Protocol]:
        """The protocol class with these timeouts."""
        return type(cls.__name__, (cls,), {"header_timeout_s": header_timeout_s, "idle_timeout_s": idle_timeout_s})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # Until the first request arrives, both timers run: silence ends at the idle timeout,
        # a request that never completes its headers at the header timeout.
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow_headers()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow_headers()

    def _waiting_for_headers(self) -> bool:
        """Whether the connection owes the headers of a request: none has come yet, or the next
        one has begun (bytes of it are buffered) but not completed its headers."""
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return False
        return self.cycle is None or bool(self.conn.trailing_data[0])

    def _follow_headers(self) -> None:
        if not self._waiting_for_headers():
            self._cancel_header_timer()
        elif self._header_timer is None:  # the deadline runs from the request's first byte
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timeout)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        if not self._waiting_for_headers():
            return
        started = bool(self.conn.trailing_data[0])
        log.debug("closing an HTTP connection that sent no complete request headers in %g s", self.header_timeout_s,
                  extra={"peer": f"{self.client[0]}:{self.client[1]}" if self.client else None})
        if started:  # a partial request gets an answer; a silent connection is just closed
            self.transport.write(_REQUEST_TIMEOUT)
        self.transport.close()


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers (the gRPC server's serve() owns SIGTERM/SIGINT)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` with SO_REUSEPORT (shared by worker processes)."""
    sock = shared_socket(host, port)
    try:
        sock.listen(1024)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


class HttpServer:
    """An ASGI application on ``host:port`` (0 = any free port), on the running event loop; over
    TLS (requiring client certificates for mutual TLS) with ``tls``."""

    def __init__(self, app: ASGIApp, host: str, port: int, grace_s: float, tls: ServerTls | None = None,
                 header_timeout_s: float = HEADER_TIMEOUT_S, idle_timeout_s: float = IDLE_TIMEOUT_S):
        self.app = app
        self.host = host
        self.port = port
        self.grace_s = grace_s
        self.tls = tls
        self.header_timeout_s = header_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self._server: _Server | None = None
        self._task: asyncio.Task | None = None

    async def start(self) -> int:
        """Bind, start serving and return the port (once uvicorn accepts connections)."""
        sock = listening_socket(self.host, self.port)
        self.port = sock.getsockname()[1]
        protocol = GuardedH11Protocol.with_timeouts(self.header_timeout_s, self.idle_timeout_s)
        config = uvicorn.Config(self.app, lifespan="off", http=protocol, ws="none", log_config=None,
                                access_log=False, server_header=False,
                                timeout_keep_alive=max(1, round(self.idle_timeout_s)),  # the protocol's is exact
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
