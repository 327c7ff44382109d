"""Start a server in a child process and wait until it answers health checks (tests, bench)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.ops.tls import ClientTls, channel

ROOT = Path(__file__).resolve().parents[1]
TEST_TOKEN_SECRET = "launcher-token-secret-for-tests-and-benchmarks-only"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """`python -m service` on 127.0.0.1:<port> in a child process; ``tls`` says how to reach a
    server started with TLS flags (``--tls-cert`` …)."""

    def __init__(self, *flags: str, port: int | None = None, redis_url: str = "", prefix: str = "",
                 env: dict | None = None, tls: ClientTls | None = None):
        self.port = port or free_port()
        self.tls = tls
        self.address = f"127.0.0.1:{self.port}"
        self.args = [sys.executable, "-m", "service", "--host", "127.0.0.1", "--port", str(self.port),
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
        with self.channel() as chan:
            stub = health_pb2_grpc.HealthStub(chan)
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log_text()}")
                try:
                    reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=0.5)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return self
                except grpc.RpcError:
                    time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"server on {self.address} did not become healthy in {timeout_s} s")

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
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
