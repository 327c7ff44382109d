"""Start a server in a child process and wait until it answers health checks (tests, bench)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.ops.tls import ClientTls, channel
from testkit.processes import stop_process

ROOT = Path(__file__).resolve().parents[1]
TEST_TOKEN_SECRET = "launcher-token-secret-for-tests-and-benchmarks-only"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def closed_port(port: int = 0) -> Iterator[int]:
    """A port on 127.0.0.1 held bound but not listening while the block runs: a connection to it
    is refused, and no other process can serve on it meanwhile. ``port``: that one if it is free
    (e.g. a stopped server's), else (or when 0) one the kernel picks."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


class ServerProcess:
    """`python -m service` (or ``module``) on 127.0.0.1 in a child process; ``tls`` says how to
    reach a server started with TLS flags (``--tls-cert`` …).

    Without ``port`` the server binds port 0 (its workers, with ``--workers N``, all the one port
    their supervisor reserved) and the port the kernel gave it is read from its start-up line, so
    no other process can take it between a port being picked and bound; it keeps that port when
    started again. ``--http-port 0`` and ``--metrics-port 0`` are read the same way
    (``http_port``, ``metrics_port``)."""

    def __init__(self, *flags: str, port: int | None = None, redis_url: str = "", prefix: str = "",
                 env: dict | None = None, tls: ClientTls | None = None, wrapper: Sequence[str] = (),
                 module: str = "service"):
        self.port = port if port is not None else 0
        self.tls = tls
        self.address = f"127.0.0.1:{self.port}"
        self.http_port: int | None = None      # as served, once started with --http-port
        self.metrics_port: int | None = None   # as served, once started with --metrics-port
        # ``wrapper``: a command the server runs under, e.g. valgrind and its options; ``module``: the
        # program run (``testkit.bench_server``: the server with the benchmark's no-op RPC)
        self.args = [*wrapper, sys.executable, "-m", module, "--host", "127.0.0.1", "--port", str(self.port),
                     "--workers", "1", *flags]
        if redis_url:
            self.args += ["--redis-url", redis_url]
        if prefix:
            self.args += ["--key-prefix", prefix]
        self.env = {"CARDGAME_TOKEN_SECRET": TEST_TOKEN_SECRET, **os.environ,
                    "LOG_LEVEL": os.environ.get("LOG_LEVEL", "WARNING"), **(env or {})}
        self.proc: subprocess.Popen | None = None
        self.log: IO[bytes] | None = None

    def start(self, timeout_s: float = 20.0) -> ServerProcess:
        """Start the process and wait until health says SERVING."""
        self.log = tempfile.NamedTemporaryFile(prefix="cardgame-server-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(self.args, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=self.log)
        deadline = time.monotonic() + timeout_s
        while self.port == 0 and time.monotonic() < deadline:   # a port asked as 0: wait until it is named
            self._check_running()
            self._read_ports()
            time.sleep(0.02)
        if self.port != 0:
            with self.channel() as chan:
                stub = health_pb2_grpc.HealthStub(chan)
                while time.monotonic() < deadline:
                    if self._serving(stub):
                        self._read_ports()
                        return self
                    time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"server on {self.address} did not become healthy in {timeout_s} s: {self.log_text()}")

    def _check_running(self) -> None:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log_text()}")

    def _serving(self, stub: health_pb2_grpc.HealthStub) -> bool:
        """Whether the (running) server's health says SERVING."""
        self._check_running()
        try:
            return stub.Check(health_pb2.HealthCheckRequest(), timeout=0.5).status == \
                health_pb2.HealthCheckResponse.SERVING
        except grpc.RpcError:
            return False

    def _read_ports(self) -> None:
        """The ports the server's start-up lines name (a port asked as 0 is only known from them);
        a restart asks for the same ones again."""
        ports = _announced_ports(self.log_text())
        if "grpc" in ports:
            self.port = ports["grpc"]
            self.address = f"127.0.0.1:{self.port}"
            _set_flag(self.args, "--port", self.port)
        if "http" in ports:
            self.http_port = ports["http"]
            _set_flag(self.args, "--http-port", self.http_port)
        if "metrics" in ports:
            self.metrics_port = ports["metrics"]
            _set_flag(self.args, "--metrics-port", self.metrics_port)

    def channel(self) -> grpc.Channel:
        """A new channel to the server (TLS as ``tls`` says)."""
        return channel(self.address, self.tls)

    def log_text(self) -> str:
        """Everything the server wrote to stderr so far."""
        return Path(self.log.name).read_text(errors="replace") if self.log is not None else ""

    def stop(self, timeout_s: float = 15.0) -> int | None:
        """SIGTERM the server and wait for it to exit; returns its exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        return stop_process(self.proc, signal.SIGTERM, timeout_s)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _announced_ports(log_text: str) -> dict[str, int]:
    """The ports a server's start-up lines (its JSON log) say it serves: "grpc", "http" and
    "metrics", those it announced so far."""
    ports = {}
    for line in log_text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = str(record.get("message", "")) if isinstance(record, dict) else ""
        if message.startswith("cardgame server listening"):
            ports["grpc"] = int(record["port"])
        elif message.startswith("cardgame HTTP"):
            ports["http"] = int(record["port"])
        elif message.startswith("cardgame metrics on"):
            ports["metrics"] = int(record["metrics_port"])
    return ports


def _set_flag(args: list[str], flag: str, value: int) -> None:
    """Make every ``flag value`` (and ``flag=value``) in ``args`` ask for ``value``."""
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            args[i + 1] = str(value)
        elif arg.startswith(flag + "="):
            args[i] = f"{flag}={value}"
